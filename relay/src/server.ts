import { ConfigError } from '../../server-kit/config-checks.js';
import { readJsonConfigFile } from '../../server-kit/json-file.js';
import { type NodeServer, serveOnNode } from '../../server-kit/serve.js';
import { parseRelayConfig, type RelayConfig, RelayConfigError } from './config.js';
import { type EnvironmentVariables, parseRelayConfigWithEnvironment } from './environment-overrides.js';
import { createRegistrationStore } from './registry/create-registration-store.js';
import { createRelay, type RelayOptions } from './relay.js';
import { sourceAddressFetch } from './sources/source-address-lookup.js';
import { RefusalLog, SourceAddressPolicy } from './sources/source-address-policy.js';
import { createRelayStore } from './store/create-store.js';

export interface RelayServerOptions extends RelayOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Loopback by default: in production a reverse proxy or CDN on the shop's origin sits in front. */
  readonly hostname?: string;
}

export interface RelayServer extends NodeServer {
  /** The registered websites found in their store at start (`selfServe`); null when the relay serves only its config's. */
  readonly registeredAtStart: number | null;
}

/** Longer than the upstream timeout, so a browser waiting on the service still gets its answer. */
const GRACE_MS = 6_000;

/**
 * Serves a relay over HTTP on Node, with the shared store its config names (unless `store` is
 * given); resolves once it listens, rejects with `RelayConfigError` for a bad config. Closing it
 * closes the store it made.
 */
export async function startRelayServer(options: RelayServerOptions): Promise<RelayServer> {
  const { port, hostname, ...relayOptions } = options;
  const config = parseRelayConfig(relayOptions.config, { source: 'startRelayServer options' });
  const log = relayOptions.log ?? ((line: string) => console.warn(line));
  const storeLog = (line: string) => log(`[live-visitors-relay] ${line}`);
  const ownStore = relayOptions.store ? undefined : await createRelayStore(config, storeLog);
  let ownRegistrations: Awaited<ReturnType<typeof createRegistrationStore>>;
  try {
    ownRegistrations = relayOptions.registrationStore ? undefined : await createRegistrationStore(config, storeLog);
  } catch (error) {
    await ownStore?.close();
    throw error;
  }
  const registrationStore = relayOptions.registrationStore ?? ownRegistrations;
  try {
    // Node's own fetch, but connecting only to addresses the operator chose: a name may resolve to this network.
    const fetch = relayOptions.fetch ?? sourceAddressFetch(SourceAddressPolicy.of(config), new RefusalLog(storeLog));
    const relay = createRelay({ ...relayOptions, config, fetch, store: relayOptions.store ?? ownStore, registrationStore });
    const server = await serveOnNode(relay, {
      port,
      hostname,
      graceMs: GRACE_MS,
    });
    // Read before the start-up lines are printed, so they say how many registrations a restart found.
    await relay.registrations?.ready;
    return {
      url: server.url,
      registeredAtStart: relay.registrations?.size ?? null,
      async close() {
        await server.close();
        await ownStore?.close();
        await ownRegistrations?.close();
      },
    };
  } catch (error) {
    await ownStore?.close();
    await ownRegistrations?.close();
    throw error;
  }
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
