/**
 * The token-safe relay as a Fetch API handler, with its configuration. Runtime-neutral
 * (Web APIs only), for edge runtimes and serverless platforms; Node's server, file
 * loading and command are in `./node.js`.
 */
export { REALTIME_PATH } from '../../src/contract/request.js';
export type { RelayConfig, RelayConfigInput, RelayedWebsite } from './config.js';
export {
  CONFIG_LIMITS,
  parseRelayConfig,
  RELAY_DEFAULTS,
  RelayConfigError,
} from './config.js';
export { relayConfigWarnings, smallestIntervalWithin, upstreamRequestsPerHour } from './config-warnings.js';
export type { EnvironmentVariables } from './environment-overrides.js';
export { parseRelayConfigWithEnvironment, RELAY_ENVIRONMENT_VARIABLES, relayConfigFromEnvironment } from './environment-overrides.js';
export { MemoryRegistrationStore } from './registry/memory-registration-store.js';
export type { RegistrationRecord } from './registry/registration-record.js';
export type { RegistrationStore } from './registry/registration-store.js';
export type {
  BindOutcome,
  Refusal,
  RegisterOutcome,
  RegistrationRequest,
  Registrations,
  RegistrationView,
  RemoveOutcome,
} from './registry/registrations.js';
export type { RotationReport } from './registry/rotate-keys.js';
export { rotateKeys } from './registry/rotate-keys.js';
export type { RelayHandler, RelayOptions } from './relay.js';
export { createRelay } from './relay.js';
export { MemoryStore } from './store/memory-store.js';
export type { BudgetDecision, RelayStore, SharedAnswer, SharedWebsiteState, StoredFailure } from './store/relay-store.js';
export type { FetchFunction } from './upstream.js';
