// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { RedisRegistrationStore } from '../src/registry/redis-registration-store.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';

/**
 * Where the Shopify app spends its session tokens' jti: the registrations' store, remembered only
 * until the token stops being accepted (exp plus the leeway). Memory with injected times; Redis is
 * a real redis-server, whose own clock expires the key. The Durable Object keeper's is run in
 * workerd by shopify-spent-session-tokens-workerd.test.ts.
 */
const T0 = Date.UTC(2026, 10, 27, 10, 0, 0);
const UNTIL = T0 + 70_000;

describe('rememberOnce in memory', () => {
  it('is true once, false until the time given, then the key is forgotten', async () => {
    const store = new MemoryRegistrationStore();
    expect(await store.rememberOnce('shopify-session-token:a', UNTIL, T0)).toBe(true);
    expect(await store.rememberOnce('shopify-session-token:a', UNTIL, UNTIL - 1)).toBe(false);
    expect(await store.rememberOnce('shopify-session-token:b', UNTIL, UNTIL - 1)).toBe(true);
    // Past its time the key is gone: remembering it again is a first time.
    expect(await store.rememberOnce('shopify-session-token:a', UNTIL + 70_000, UNTIL)).toBe(true);
    expect(await store.rememberOnce('shopify-session-token:a', UNTIL + 70_000, UNTIL + 1)).toBe(false);
  });
});

describe('rememberOnce in Redis', () => {
  let redis: RedisServer;
  let stores: RedisRegistrationStore[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    stores = [];
    await redis?.close();
  });
  const connect = async () => {
    const store = await RedisRegistrationStore.connect({ url: redis.url, prefix: 'lv:', log: () => undefined });
    stores.push(store);
    return store;
  };

  it('is shared by the fleet: a key spent on one instance is refused on another, and Redis expires it at the time given', async () => {
    const [one, two] = [await connect(), await connect()];
    const now = Date.now();
    expect(await one.rememberOnce('shopify-session-token:fleet', now + 60_000, now)).toBe(true);
    expect(await two.rememberOnce('shopify-session-token:fleet', now + 60_000, now)).toBe(false);
    expect(await two.rememberOnce('shopify-session-token:other', now + 60_000, now)).toBe(true);

    // A key whose time is up is gone from Redis: it holds nothing past a token's life.
    expect(await one.rememberOnce('shopify-session-token:short', now + 50, now)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await two.rememberOnce('shopify-session-token:short', now + 60_000, Date.now())).toBe(true);
  });
});
