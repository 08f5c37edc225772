import type { After } from '../../../src/contract/timers.js';
import type { RelayConfig } from '../config.js';
import type { RelayStore } from './relay-store.js';

/**
 * The store a config names: none for `memory` (the relay then keeps its own), or the shared Redis
 * store, connected. Runs on Node, Bun and Deno. Redis being down at start does not fail it: the
 * relay serves on and coordination starts once Redis answers.
 */
export async function createRelayStore(
  config: Pick<RelayConfig, 'store' | 'storePrefix'>,
  log: (line: string) => void = (line) => console.warn(line),
  /** What every wait on the store runs on; the system's timers when absent. */
  timers?: After,
): Promise<RelayStore | undefined> {
  if (config.store === 'memory') return undefined;
  // Loaded only for a shared store, so a one-instance relay never loads the client.
  const { RedisStore } = await import('./redis-store.js');
  return RedisStore.connect({ url: config.store, prefix: config.storePrefix, log, timers });
}
