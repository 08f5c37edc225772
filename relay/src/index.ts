/**
 * The token-safe relay as a Fetch API handler, with its configuration. Runtime-neutral
 * (Web APIs only), for edge runtimes and serverless platforms; Node's server and file
 * loading are in `./node.js`.
 */
export { createRelay, REALTIME_PATH } from './relay.js';
export type { RelayHandler, RelayOptions } from './relay.js';
export { CONFIG_LIMITS, parseRelayConfig, RELAY_DEFAULTS, RelayConfigError } from './config.js';
export { relayConfigWarnings, smallestIntervalWithin, upstreamRequestsPerHour } from './config-warnings.js';
export type { RelayConfig, RelayedWebsite } from './config.js';
export { parseRelayConfigWithEnvironment, RELAY_ENVIRONMENT_VARIABLES, relayConfigFromEnvironment } from './environment-overrides.js';
export type { EnvironmentVariables } from './environment-overrides.js';
export type { FetchFunction } from './upstream.js';
