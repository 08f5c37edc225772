import type { RelayConfig } from '../config.js';
import type { RegistrationStore } from './registration-store.js';

/**
 * Where a self-serving relay on Node, Bun or Deno keeps its registrations: in Redis beside the
 * fleet's state when the config names Redis, in `registrationsFile` for one instance; none
 * otherwise (then `createRelay` keeps them in memory if the config allows it, or says why not).
 */
export async function createRegistrationStore(
  config: Pick<RelayConfig, 'selfServe' | 'store' | 'storePrefix' | 'registrationsFile'>,
  log: (line: string) => void = (line) => console.warn(line),
): Promise<RegistrationStore | undefined> {
  if (!config.selfServe) return undefined;
  if (config.store !== 'memory') {
    const { RedisRegistrationStore } = await import('./redis-registration-store.js');
    return RedisRegistrationStore.connect({ url: config.store, prefix: config.storePrefix, log });
  }
  if (config.registrationsFile !== null) {
    const { FileRegistrationStore } = await import('./file-registration-store.js');
    return FileRegistrationStore.open(config.registrationsFile, log);
  }
  return undefined;
}
