// The relay on Node: everything of `./index.js`, plus the HTTP server, the config file loader and the command.
export type { CommandIo } from '../../server-kit/command.js';
export { runServerCommand } from '../../server-kit/command.js';
export { relayCommand } from './command.js';
export * from './index.js';
export { createRegistrationStore } from './registry/create-registration-store.js';
export { FileRegistrationStore } from './registry/file-registration-store.js';
export { RedisRegistrationStore } from './registry/redis-registration-store.js';
export { runRotateKeys } from './rotate-keys-command.js';
export type { RelayServer, RelayServerOptions } from './server.js';
export { loadRelayConfig, startRelayServer } from './server.js';
export { createRelayStore } from './store/create-store.js';
export type { RedisStoreOptions } from './store/redis-store.js';
export { RedisStore } from './store/redis-store.js';
