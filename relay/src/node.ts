/** The relay on Node: everything of `./index.js`, plus the HTTP server and the config file loader. */
export * from './index.js';
export { startRelayServer } from './server.js';
export type { RelayServer, RelayServerOptions } from './server.js';
export { loadRelayConfig } from './load-config.js';
export { runRelayCommand } from './command.js';
export type { RelayCommandIo } from './command.js';
