// @vitest-environment node
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../server-kit/rolling-hour.js';
import { MemoryStore } from '../src/store/memory-store.js';
import { RedisStore } from '../src/store/redis-store.js';
import type { RelayStore, SharedWebsiteState } from '../src/store/relay-store.js';
import { readWebsiteState } from '../src/store/stored-records.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { leakedTokens, START_MS, TOKENS } from './support/relay-harness.js';

/** Longer than any command on loopback, short enough to wait out. */
const SHORT_MS = 150;
const T0 = START_MS;

let redis: RedisServer;
let inspector: ReturnType<typeof createClient>;
const opened: RelayStore[] = [];
const logs: string[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  inspector = createClient({ url: redis.url });
  inspector.on('error', () => {});
  await inspector.connect();
});
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  inspector?.destroy();
  await redis?.close();
});

interface Subject {
  readonly name: string;
  /** Stores opened on one prefix share everything, as a fleet's instances do; prefixes are apart. */
  open(prefix: string): Promise<RelayStore>;
}

const memoryStores = new Map<string, MemoryStore>();
const SUBJECTS: Subject[] = [
  {
    name: 'MemoryStore',
    // One process's memory: "the fleet" is the one store.
    async open(prefix) {
      const store = memoryStores.get(prefix) ?? new MemoryStore();
      memoryStores.set(prefix, store);
      return store;
    },
  },
  {
    name: 'RedisStore',
    async open(prefix) {
      const store = await RedisStore.connect({ url: redis.url, prefix, log: (line) => logs.push(line) });
      opened.push(store);
      return store;
    },
  },
];

let fresh = 0;
/** A prefix of its own per test, so no test sees another's keys. */
const freshPrefix = () => `contract-${++fresh}:`;

function stateOf(websiteId: string, currentVisitors: number, fetchedAtMs = T0): SharedWebsiteState {
  const body = JSON.stringify({ currentVisitors, websiteId, timestamp: new Date(fetchedAtMs).toISOString() });
  return {
    answer: { body, etag: `"etag-${currentVisitors}"`, fetchedAtMs },
    failures: 0,
    nextAttemptAtMs: fetchedAtMs + 60_000,
    failure: null,
  };
}

const FAILED: SharedWebsiteState = {
  answer: null,
  failures: 2,
  nextAttemptAtMs: T0 + 240_000,
  failure: { kind: 'server', status: 500, reason: 'answered 500 "Internal error"' },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every key under `prefix` with its value (whatever its type) and its remaining life. */
async function dump(prefix: string): Promise<Array<{ key: string; value: string; pttl: number }>> {
  const keys = await inspector.keys(`${prefix}*`);
  return Promise.all(
    keys.map(async (key) => {
      const type = await inspector.type(key);
      const value =
        type === 'string'
          ? ((await inspector.get(key)) ?? '')
          : type === 'zset'
            ? JSON.stringify(await inspector.zRangeWithScores(key, 0, -1))
            : `<${type}>`;
      return { key, value, pttl: await inspector.pTTL(key) };
    }),
  );
}

describe.each(SUBJECTS)('$name keeps the RelayStore contract', (subject) => {
  describe('website state', () => {
    it('is null before anything was written', async () => {
      const store = await subject.open(freshPrefix());
      expect(await store.read('shop-a')).toBeNull();
    });

    it('is read back equal, by every store of the fleet, and replaced by the next write', async () => {
      const prefix = freshPrefix();
      const [one, two] = [await subject.open(prefix), await subject.open(prefix)];
      await one.write('shop-a', stateOf('shop-a', 3), 60_000);
      expect(await two.read('shop-a')).toEqual(stateOf('shop-a', 3));
      await two.write('shop-a', FAILED, 60_000);
      expect(await one.read('shop-a')).toEqual(FAILED);
      expect(await one.read('shop-b')).toBeNull();
    });

    it('is forgotten after keepMs', async () => {
      const store = await subject.open(freshPrefix());
      await store.write('shop-a', stateOf('shop-a', 1), SHORT_MS);
      expect(await store.read('shop-a')).not.toBeNull();
      await sleep(SHORT_MS + 50);
      expect(await store.read('shop-a')).toBeNull();
    });
  });

  describe('claim', () => {
    it('goes to one holder at a time; only its holder releases it', async () => {
      const prefix = freshPrefix();
      const [one, two] = [await subject.open(prefix), await subject.open(prefix)];
      expect(await one.claim('shop-a', 'holder-1', 10_000)).toBe(true);
      expect(await two.claim('shop-a', 'holder-2', 10_000)).toBe(false);
      expect(await one.claim('shop-a', 'holder-1', 10_000)).toBe(false);
      // Another website's claim is another claim.
      expect(await two.claim('shop-b', 'holder-2', 10_000)).toBe(true);

      await two.release('shop-a', 'holder-2');
      expect(await two.claim('shop-a', 'holder-3', 10_000)).toBe(false);
      await two.release('shop-a', 'holder-1');
      expect(await two.claim('shop-a', 'holder-3', 10_000)).toBe(true);
      // A late release by the former holder does not free its successor's claim.
      await one.release('shop-a', 'holder-1');
      expect(await one.claim('shop-a', 'holder-4', 10_000)).toBe(false);
    });

    it('expires after its ttl, so a holder that died cannot stall the fleet', async () => {
      const prefix = freshPrefix();
      const [one, two] = [await subject.open(prefix), await subject.open(prefix)];
      expect(await one.claim('shop-a', 'dies', SHORT_MS)).toBe(true);
      expect(await two.claim('shop-a', 'survivor', SHORT_MS)).toBe(false);
      await sleep(SHORT_MS + 50);
      expect(await two.claim('shop-a', 'survivor', 10_000)).toBe(true);
    });

    it('is granted exactly once to 50 holders asking at once from five stores', async () => {
      const prefix = freshPrefix();
      const stores = await Promise.all(Array.from({ length: 5 }, () => subject.open(prefix)));
      const granted = await Promise.all(
        Array.from({ length: 50 }, (_, index) => stores[index % stores.length]!.claim('shop-a', `holder-${index}`, 10_000)),
      );
      expect(granted.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('hourly budget', () => {
    it('lets exactly `limit` of 200 concurrent takes through, across five stores', async () => {
      const prefix = freshPrefix();
      const stores = await Promise.all(Array.from({ length: 5 }, () => subject.open(prefix)));
      const decisions = await Promise.all(Array.from({ length: 200 }, (_, index) => stores[index % stores.length]!.takeBudget(T0, 7)));
      expect(decisions.filter((decision) => decision.taken)).toHaveLength(7);
      // Refused ones learn when the first counted request leaves the hour.
      for (const decision of decisions.filter((each) => !each.taken)) expect(decision.nextRoomAtMs).toBe(T0 + HOUR_MS);
    });

    it('counts over a rolling hour: each request holds its slot for exactly one hour', async () => {
      const store = await subject.open(freshPrefix());
      expect(await store.takeBudget(T0, 2)).toEqual({ taken: true, nextRoomAtMs: T0 });
      expect(await store.takeBudget(T0 + 1_000, 2)).toEqual({ taken: true, nextRoomAtMs: T0 + HOUR_MS });
      expect(await store.takeBudget(T0 + HOUR_MS - 1, 2)).toEqual({ taken: false, nextRoomAtMs: T0 + HOUR_MS });
      // The first one leaves at T0 + 1 h exactly, making room for one.
      expect(await store.takeBudget(T0 + HOUR_MS, 2)).toEqual({ taken: true, nextRoomAtMs: T0 + 1_000 + HOUR_MS });
      expect(await store.takeBudget(T0 + HOUR_MS + 999, 2)).toEqual({ taken: false, nextRoomAtMs: T0 + 1_000 + HOUR_MS });
      // Two hours on, the window is empty again.
      expect(await store.takeBudget(T0 + 3 * HOUR_MS, 2)).toEqual({ taken: true, nextRoomAtMs: T0 + 3 * HOUR_MS });
    });

    it('keeps milliseconds exact: fractional times (a monotonic clock) round-trip', async () => {
      const store = await subject.open(freshPrefix());
      const at = T0 + 0.375;
      expect(await store.takeBudget(at, 1)).toEqual({ taken: true, nextRoomAtMs: at + HOUR_MS });
      expect(await store.takeBudget(at + 1, 1)).toEqual({ taken: false, nextRoomAtMs: at + HOUR_MS });
    });
  });

  it('keeps two prefixes apart: states, claims and budgets', async () => {
    const [one, other] = [await subject.open(freshPrefix()), await subject.open(freshPrefix())];
    await one.write('shop-a', stateOf('shop-a', 5), 60_000);
    expect(await other.read('shop-a')).toBeNull();
    expect(await one.claim('shop-a', 'holder-1', 10_000)).toBe(true);
    expect(await other.claim('shop-a', 'holder-2', 10_000)).toBe(true);
    expect((await one.takeBudget(T0, 1)).taken).toBe(true);
    expect((await other.takeBudget(T0, 1)).taken).toBe(true);
    expect((await one.takeBudget(T0, 1)).taken).toBe(false);
  });
});

describe('RedisStore in Redis, where other programs can look', () => {
  const subject = SUBJECTS.find(({ name }) => name === 'RedisStore')!;

  it('writes only keys under its prefix, each with an expiry, none holding a token', async () => {
    const prefix = freshPrefix();
    const store = await subject.open(prefix);
    await store.write('shop-a', stateOf('shop-a', 4), 60_000);
    await store.write('shop-b', FAILED, 60_000);
    await store.claim('shop-a', 'holder-1', 10_000);
    await store.takeBudget(T0, 5);
    const keys = await dump(prefix);
    expect(keys.map((entry) => entry.key).sort()).toEqual([
      `${prefix}budget`,
      `${prefix}claim:{shop-a}`,
      `${prefix}state:{shop-a}`,
      `${prefix}state:{shop-b}`,
    ]);
    for (const { key, pttl } of keys) expect({ key, expires: pttl > 0 }).toEqual({ key, expires: true });
    expect(keys.find((entry) => entry.key.endsWith('budget'))!.pttl).toBeGreaterThan(HOUR_MS - 60_000);
    expect(leakedTokens(JSON.stringify(keys), TOKENS)).toEqual([]);
  });

  it.each([
    ['not JSON', '{"answer": nul'],
    ['JSON of another shape', '{"count":3}'],
    ['a state whose answer is for another website', JSON.stringify(stateOf('shop-b', 3))],
    [
      'a state whose body is not the contract report',
      JSON.stringify({ ...stateOf('shop-a', 3), answer: { ...stateOf('shop-a', 3).answer, body: '{"currentVisitors":3}' } }),
    ],
    ['a state with an unknown failure kind', JSON.stringify({ ...FAILED, failure: { kind: 'boom', status: 500, reason: 'x' } })],
    ['an empty string', ''],
  ])('hands back %s under its state key unread, which readWebsiteState reads as no state', async (_, garbage) => {
    const prefix = freshPrefix();
    const store = await subject.open(prefix);
    await inspector.set(`${prefix}state:{shop-a}`, garbage, { expiration: { type: 'PX', value: 60_000 } });
    const reading = readWebsiteState(await store.read('shop-a'), { websiteId: 'shop-a', nowMs: T0, intervalMs: 60_000 });
    expect(reading).toEqual({ state: null, problem: 'not-a-state' });
  });
});
