/**
 * The relay as a Cloudflare Worker. wrangler.toml holds the settings and binds the Durable Object
 * that coordinates every isolate; the tokens go in a secret:
 * `npx wrangler secret put LIVE_VISITORS_WEBSITES`, then `npx wrangler deploy`. Behind a Shopify
 * app's App Proxy, its client secret is a secret too: `npx wrangler secret put LIVE_VISITORS_SHOPIFY_APP_SECRET`.
 * For a relay where owners register their websites (LIVE_VISITORS_SELF_SERVE = "true"), the key
 * that encrypts their tokens: `npx wrangler secret put LIVE_VISITORS_ENCRYPTION_KEYS`.
 */
import {
  createRelay,
  DurableObjectRegistrationStore,
  DurableObjectStore,
  type RegistrationKeeperNamespace,
  type RelayCoordinatorNamespace,
  type RelayHandler,
  relayConfigFromEnvironment,
} from 'live-visitors-relay/cloudflare';

// wrangler.toml's bindings name classes of this Worker: the package's, exported as they are.
export { RegistrationKeeper, RelayCoordinator } from 'live-visitors-relay/cloudflare';

type Env = {
  readonly RELAY_COORDINATOR: RelayCoordinatorNamespace;
  /** Where websites registered at run time live (LIVE_VISITORS_SELF_SERVE=true). */
  readonly REGISTRATIONS: RegistrationKeeperNamespace;
} & Readonly<Record<`LIVE_VISITORS_${string}`, string | undefined>>;

// Once per isolate, not per request (the env arrives with the first request). Isolates come and
// go by the dozen; through the Durable Object they still ask upstream once per interval, together.
let relay: RelayHandler | undefined;

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    if (!relay) {
      const { RELAY_COORDINATOR, REGISTRATIONS, ...variables } = env;
      const config = relayConfigFromEnvironment(variables);
      relay = createRelay({
        config,
        store: new DurableObjectStore(RELAY_COORDINATOR),
        // Owners' registrations outlive isolates and evictions in the keeper's storage.
        registrationStore: config.selfServe ? new DurableObjectRegistrationStore(REGISTRATIONS) : undefined,
        // Cloudflare sets it to the visitor's address, replacing what a client sent: each
        // registrant gets its own attempt limit instead of sharing one.
        clientAddress: (request) => request.headers.get('cf-connecting-ip') ?? undefined,
      });
    }
    return relay(request);
  },
};
