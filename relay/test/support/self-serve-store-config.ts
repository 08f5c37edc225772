import { parseRelayConfig } from '../../src/config.js';

/**
 * A self-serving relay's config for the registration-store tests: budgets high enough that no
 * limit refuses first, so what a test sees is the store's doing; `overrides` names the store.
 */
export function selfServeStoreConfig(upstream: string, encryptionKey: string, interval: number, overrides: Record<string, unknown>) {
  return parseRelayConfig({
    upstream,
    selfServe: true,
    encryptionKeys: [encryptionKey],
    interval,
    maxStale: 60,
    hourlyBudget: 1_000,
    registrationsPerHour: 1_000,
    ...overrides,
  });
}
