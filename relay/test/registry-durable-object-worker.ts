// The Worker the Durable Object registration test runs in workerd: a self-serving relay whose
// registrations live in `RegistrationKeeper`, built from the sources (not a template).
import {
  createRelay,
  DurableObjectRegistrationStore,
  DurableObjectStore,
  type RegistrationKeeperNamespace,
  type RelayCoordinatorNamespace,
  type RelayHandler,
  relayConfigFromEnvironment,
} from '../src/cloudflare.js';

export { RegistrationKeeper, RelayCoordinator } from '../src/cloudflare.js';

type Env = {
  readonly RELAY_COORDINATOR: RelayCoordinatorNamespace;
  readonly REGISTRATIONS: RegistrationKeeperNamespace;
} & Readonly<Record<`LIVE_VISITORS_${string}`, string | undefined>>;

let relay: RelayHandler | undefined;

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    const { RELAY_COORDINATOR, REGISTRATIONS, ...variables } = env;
    relay ??= createRelay({
      config: relayConfigFromEnvironment(variables),
      store: new DurableObjectStore(RELAY_COORDINATOR),
      registrationStore: new DurableObjectRegistrationStore(REGISTRATIONS),
    });
    return relay(request);
  },
};
