import { ConfigError } from '../../server-kit/config-checks.js';
import { readJsonConfigFile } from '../../server-kit/json-file.js';
import { type NodeServer, serveOnNode } from '../../server-kit/serve.js';
import { type RelayConfig, RelayConfigError } from './config.js';
import { type EnvironmentVariables, parseRelayConfigWithEnvironment } from './environment-overrides.js';
import { createRelay, type RelayOptions } from './relay.js';

export interface RelayServerOptions extends RelayOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Loopback by default: in production a reverse proxy or CDN on the shop's origin sits in front. */
  readonly hostname?: string;
}

export type RelayServer = NodeServer;

/** Longer than the upstream timeout, so a browser waiting on the service still gets its answer. */
const GRACE_MS = 6_000;

/** Serves a relay over HTTP on Node; resolves once it listens, rejects with `RelayConfigError` for a bad config. */
export async function startRelayServer(options: RelayServerOptions): Promise<RelayServer> {
  const { port, hostname, ...relayOptions } = options;
  return serveOnNode(createRelay(relayOptions), { port, hostname, graceMs: GRACE_MS });
}

/**
 * Reads a JSON config file and validates it, with environment variables overriding its fields.
 * Every failure is a `RelayConfigError` naming the file; none quotes the file's text (it holds tokens).
 */
export async function loadRelayConfig(path: string, env: EnvironmentVariables = {}): Promise<RelayConfig> {
  let json: unknown;
  try {
    json = await readJsonConfigFile(path, 'relay');
  } catch (error) {
    throw error instanceof ConfigError ? new RelayConfigError(error.source, error.issues) : error;
  }
  return parseRelayConfigWithEnvironment(json, env, path);
}
