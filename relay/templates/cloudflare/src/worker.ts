/**
 * The relay as a Cloudflare Worker. wrangler.toml holds the settings and binds the Durable Object
 * that coordinates every isolate; the tokens go in a secret:
 * `npx wrangler secret put LIVE_VISITORS_WEBSITES`, then `npx wrangler deploy`. Behind a Shopify
 * app's App Proxy, its client secret is a secret too: `npx wrangler secret put LIVE_VISITORS_SHOPIFY_APP_SECRET`.
 */
import {
  createRelay,
  DurableObjectStore,
  type RelayCoordinatorNamespace,
  type RelayHandler,
  relayConfigFromEnvironment,
} from 'live-visitors-relay/cloudflare';

// wrangler.toml's binding names a class of this Worker: the package's, exported as it is.
export { RelayCoordinator } from 'live-visitors-relay/cloudflare';

type Env = {
  readonly RELAY_COORDINATOR: RelayCoordinatorNamespace;
} & Readonly<Record<`LIVE_VISITORS_${string}`, string | undefined>>;

// Once per isolate, not per request (the env arrives with the first request). Isolates come and
// go by the dozen; through the Durable Object they still ask upstream once per interval, together.
let relay: RelayHandler | undefined;

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    const { RELAY_COORDINATOR, ...variables } = env;
    relay ??= createRelay({
      config: relayConfigFromEnvironment(variables),
      store: new DurableObjectStore(RELAY_COORDINATOR),
    });
    return relay(request);
  },
};
