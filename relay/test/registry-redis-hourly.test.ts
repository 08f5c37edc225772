// @vitest-environment node
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRegistrationStore } from '../src/registry/redis-registration-store.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';

/**
 * The registration store's hourly counters (a registered website's budget, registration attempts)
 * on a real Redis, with the rolling hour of the relay's own budget: an instance's clock cannot move
 * the fleet's count, and a key some other program wrote under the prefix does not stop counting.
 */
const HOUR_MS = 60 * 60_000;

let redis: RedisServer;
let inspector: ReturnType<typeof createClient>;

beforeAll(async () => {
  redis = await startRedisServer();
  inspector = createClient({ url: redis.url });
  await inspector.connect();
});

afterAll(async () => {
  await inspector?.quit();
  await redis?.close();
});

async function storeWithPrefix(prefix: string): Promise<RedisRegistrationStore> {
  return RedisRegistrationStore.connect({ url: redis.url, prefix, log: () => undefined });
}

describe('hourly counters in Redis', () => {
  it('cannot be overspent by an instance whose clock runs two hours fast', async () => {
    const [onTime, fast] = await Promise.all([storeWithPrefix('skew:'), storeWithPrefix('skew:')]);
    try {
      expect((await onTime.takeHourly('website:shop', Date.now(), 1)).taken).toBe(true);
      // Trusting its own clock, the fast instance would forget the event above as over an hour old.
      expect((await fast.takeHourly('website:shop', Date.now() + 2 * HOUR_MS, 1)).taken).toBe(false);
      expect(await inspector.zCard('skew:hourly:website:shop')).toBe(1);
    } finally {
      await Promise.all([onTime.close(), fast.close()]);
    }
  });

  it('replaces a key of another type under the prefix instead of failing on it', async () => {
    await inspector.set('wrong:hourly:attempts', 'not a sorted set');
    const store = await storeWithPrefix('wrong:');
    try {
      const decision = await store.takeHourly('attempts', Date.now(), 2);
      expect(decision.taken).toBe(true);
      expect(await inspector.type('wrong:hourly:attempts')).toBe('zset');
    } finally {
      await store.close();
    }
  });
});
