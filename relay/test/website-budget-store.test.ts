// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { RedisRegistrationStore } from '../src/registry/redis-registration-store.js';
import type { RegistrationStore } from '../src/registry/registration-store.js';
import { WebsiteBudgetStore } from '../src/registry/website-budget-store.js';
import { MemoryStore } from '../src/store/memory-store.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';

/**
 * A registered website's request is counted in its own hourly budget, then in the relay's. When the
 * relay's refuses, no request is sent, so the website's count must not stay spent: its owner's
 * plan would otherwise drain while the relay is at its limit. Memory and a real Redis.
 */
let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis?.close();
});

const stores: Array<[string, () => Promise<RegistrationStore>]> = [
  ['memory', async () => new MemoryRegistrationStore()],
  ['Redis', () => RedisRegistrationStore.connect({ url: redis.url, prefix: 'budget-order:', log: () => undefined })],
];

describe.each(stores)('WebsiteBudgetStore on %s registrations', (_name, open) => {
  it("gives the website's count back when the relay's budget refuses", async () => {
    const registrations = await open();
    try {
      const now = Date.now();
      const relayStore = new MemoryStore(() => now);
      // The relay's budget of 1 goes to another website.
      expect((await new WebsiteBudgetStore(relayStore, registrations, 'other', 1).takeBudget(now, 1)).taken).toBe(true);
      const shop = new WebsiteBudgetStore(relayStore, registrations, 'shop', 1);
      expect((await shop.takeBudget(now, 1)).taken).toBe(false);
      expect((await shop.takeBudget(now, 1)).taken).toBe(false);
      // Nothing was sent for "shop": its one request this hour is still there to take.
      expect((await registrations.takeHourly('website:shop', now, 1)).taken).toBe(true);
      // And the one sent for "other" stays counted.
      expect((await registrations.takeHourly('website:other', now, 1)).taken).toBe(false);
    } finally {
      await registrations.close();
    }
  });
});
