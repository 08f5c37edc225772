/**
 * The relay on Cloudflare Workers: everything of `./index.js`, plus its two Durable Objects (the
 * fleet's answers, claims and budgets; the registrations) and the stores that reach them. Kept out of the
 * runtime-neutral entry: it imports `cloudflare:workers`, which only workerd has.
 */
export * from './index.js';
export type {
  RegistrationKeeperNamespace,
  RegistrationKeeperStub,
} from './registry/durable-object-registration-store.js';
export { DurableObjectRegistrationStore, RegistrationKeeper } from './registry/durable-object-registration-store.js';
export type {
  CoordinatorState,
  DurableObjectStoreOptions,
  RelayCoordinatorNamespace,
  RelayCoordinatorStub,
} from './store/durable-object-store.js';
export { DurableObjectStore, RelayCoordinator } from './store/durable-object-store.js';
