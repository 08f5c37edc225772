// @vitest-environment node
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveOnNode } from '../../server-kit/serve.js';
import { RedisStore } from '../src/store/redis-store.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { type Answer, answerText, leakedTokens, type RelayHarness, SHOP, START_MS, startRelayHarness } from './support/relay-harness.js';

/**
 * One relay on a real Redis that someone else also wrote into (issue 25, defects 2-5 and 7):
 * every value read back is bounded, healed or refused, and the relay keeps answering from upstream.
 * The relay's clock is the harness's manual clock; Redis and the timers are real.
 */

const INTERVAL_MS = 60_000;
/** A body the relay itself would have written for shop-a, so only its times can be wrong. */
const STORED_BODY = JSON.stringify({ currentVisitors: 999, websiteId: SHOP.id, timestamp: '2025-01-15T11:00:00.000Z' });

let redis: RedisServer;
let inspector: ReturnType<typeof createClient>;
let prefixes = 0;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  redis = await startRedisServer();
  inspector = createClient({ url: redis.url });
  inspector.on('error', () => {});
  await inspector.connect();
});
afterAll(async () => {
  inspector?.destroy();
  await redis?.close();
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

interface Setup {
  readonly h: RelayHarness;
  readonly prefix: string;
  readonly storeLogs: string[];
  key(kind: 'state' | 'claim' | 'budget'): string;
  ask(): Promise<Answer>;
}

async function relayOnRedis(options: { hourlyBudget?: number; upstream?: string; upstreamTimeoutMs?: number } = {}): Promise<Setup> {
  prefixes += 1;
  const prefix = `untrusted-${prefixes}:`;
  const storeLogs: string[] = [];
  const store = await RedisStore.connect({ url: redis.url, prefix, log: (line) => storeLogs.push(line) });
  const h = await startRelayHarness({
    config: { hourlyBudget: options.hourlyBudget ?? 1_000, ...(options.upstream ? { upstream: options.upstream } : {}) },
    relay: { store, ...(options.upstreamTimeoutMs ? { upstreamTimeoutMs: options.upstreamTimeoutMs } : {}) },
  });
  cleanups.push(async () => {
    await h.close();
    await store.close();
  });
  return {
    h,
    prefix,
    storeLogs,
    key: (kind) => (kind === 'budget' ? `${prefix}budget` : `${prefix}${kind}:{${SHOP.id}}`),
    ask: () => h.get(`?websiteId=${SHOP.id}`),
  };
}

function storedState(fields: { fetchedAtMs?: number; nextAttemptAtMs: number; failures?: number }): string {
  const answer =
    fields.fetchedAtMs === undefined ? null : { body: STORED_BODY, etag: '"0123456789abcdef"', fetchedAtMs: fields.fetchedAtMs };
  const failures = fields.failures ?? 0;
  const failure = failures > 0 ? { kind: 'timeout', status: null, reason: 'did not answer within 5 s' } : null;
  return JSON.stringify({ answer, failures, nextAttemptAtMs: fields.nextAttemptAtMs, failure });
}

const visitors = (answer: Answer) => (answer.json as { currentVisitors?: unknown } | undefined)?.currentVisitors;

/** How a promise ended within `boundMs` of real time: a hang shows as 'pending' rather than a stuck test. */
async function within<T>(promise: Promise<T>, boundMs: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), boundMs);
  });
  try {
    return await Promise.race([promise, pending]);
  } finally {
    clearTimeout(timer);
  }
}

describe('times in the store from a wrong clock (defect 2)', () => {
  it.each([
    ['30 s ahead', 30_000],
    ['1 h ahead', 3_600_000],
    ['at 4e12 ms (year 2096)', 4e12 - START_MS],
  ])('refuses an answer fetched %s, asks upstream, and logs it once', async (_name, aheadMs) => {
    const s = await relayOnRedis();
    await inspector.set(
      s.key('state'),
      storedState({ fetchedAtMs: START_MS + aheadMs, nextAttemptAtMs: START_MS + aheadMs + INTERVAL_MS }),
      {
        expiration: { type: 'PX', value: 600_000 },
      },
    );
    const first = await s.ask();
    expect({ status: first.status, planted: visitors(first) === 999, age: first.headers.get('age') }).toEqual({
      status: 200,
      planted: false,
      age: '0',
    });
    expect(s.h.upstreamCalls).toHaveLength(1);
    // Written again by the relay, with its own time.
    expect(JSON.parse((await inspector.get(s.key('state'))) ?? '{}').answer.fetchedAtMs).toBe(START_MS);

    s.h.clock.advance(INTERVAL_MS);
    const later = s.h.clock.now() + aheadMs;
    await inspector.set(s.key('state'), storedState({ fetchedAtMs: later, nextAttemptAtMs: later }), {
      expiration: { type: 'PX', value: 600_000 },
    });
    const second = await s.ask();
    expect({ status: second.status, planted: visitors(second) === 999, age: second.headers.get('age') }).toEqual({
      status: 200,
      planted: false,
      age: '0',
    });
    expect(s.h.upstreamCalls).toHaveLength(2);
    expect(s.h.logs.filter((line) => /in the future/.test(line))).toHaveLength(1);
  });

  it('never answers a negative Age, and stops serving a planted answer once its key is deleted', async () => {
    const s = await relayOnRedis();
    // Within the tolerance: accepted, but its age is never below 0.
    await inspector.set(s.key('state'), storedState({ fetchedAtMs: START_MS + 500, nextAttemptAtMs: START_MS + INTERVAL_MS }), {
      expiration: { type: 'PX', value: 600_000 },
    });
    const planted = await s.ask();
    expect({ status: planted.status, visitors: visitors(planted), age: planted.headers.get('age') }).toEqual({
      status: 200,
      visitors: 999,
      age: '0',
    });
    await inspector.del(s.key('state'));
    s.h.clock.advance(INTERVAL_MS + 1_000);
    const after = await s.ask();
    expect({ status: after.status, planted: visitors(after) === 999 }).toEqual({ status: 200, planted: false });
    expect(s.h.upstreamCalls).toHaveLength(1);
  });
});

describe('absurd times in the store (defect 3)', () => {
  it('clamps a back-off of 1e300 ms: a small whole Retry-After, and an answer one interval after the key is deleted', async () => {
    const s = await relayOnRedis();
    await inspector.set(s.key('state'), storedState({ nextAttemptAtMs: 1e300, failures: 1 }), {
      expiration: { type: 'PX', value: 600_000 },
    });
    const refused = await s.ask();
    expect(refused.status).toBe(504);
    expect(refused.headers.get('retry-after')).toMatch(/^\d{1,4}$/);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3_600);
    expect(s.h.upstreamCalls).toHaveLength(0);

    await inspector.del(s.key('state'));
    s.h.clock.advance(INTERVAL_MS);
    const healed = await s.ask();
    expect(healed.status).toBe(200);
    expect(s.h.upstreamCalls).toHaveLength(1);
  });

  it('drops budget entries dated 1e15 ms: they neither spend the budget nor stop the relay', async () => {
    const s = await relayOnRedis({ hourlyBudget: 3 });
    await inspector.zAdd(
      s.key('budget'),
      ['a', 'b', 'c'].map((value) => ({ score: 1e15, value })),
    );
    const answer = await s.ask();
    expect({ status: answer.status, retryAfter: answer.headers.get('retry-after') }).toEqual({ status: 200, retryAfter: null });
    expect(s.h.upstreamCalls).toHaveLength(1);
    expect(await inspector.zCard(s.key('budget'))).toBe(1);
  });
});

describe('a budget shared with an instance whose clock runs an hour ahead (defect 2)', () => {
  it('neither forgets the fleet’s requests as over an hour old nor lets it spend more', async () => {
    prefixes += 1;
    const prefix = `untrusted-${prefixes}:`;
    const [honest, ahead] = await Promise.all([
      RedisStore.connect({ url: redis.url, prefix, log: () => {} }),
      RedisStore.connect({ url: redis.url, prefix, log: () => {} }),
    ]);
    cleanups.push(() => Promise.all([honest.close(), ahead.close()]));
    const nowMs = Date.now();
    expect((await honest.takeBudget(nowMs, 2)).taken).toBe(true);
    expect((await honest.takeBudget(nowMs + 1, 2)).taken).toBe(true);
    const refused = await ahead.takeBudget(nowMs + 3_600_000, 2);
    expect(refused.taken).toBe(false);
    // Room comes, on the fast clock, an hour after the honest first request: about now + 2 h there.
    expect(refused.nextRoomAtMs - (nowMs + 3_600_000)).toBeGreaterThan(3_500_000);
    expect(refused.nextRoomAtMs - (nowMs + 3_600_000)).toBeLessThanOrEqual(3_600_000);
    expect(await inspector.zCard(`${prefix}budget`)).toBe(2);
  });
});

describe('keys of the wrong type (defect 4)', () => {
  it('replaces a hash on the state key, logs it, and answers from upstream', async () => {
    const s = await relayOnRedis();
    await inspector.hSet(s.key('state'), { answer: 'none' });
    const answer = await s.ask();
    expect(answer.status).toBe(200);
    expect(s.h.upstreamCalls).toHaveLength(1);
    expect(await inspector.type(s.key('state'))).toBe('string');
    expect(s.storeLogs.filter((line) => /state:\{shop-a\} held a hash/.test(line))).toHaveLength(1);
  });

  it('replaces a string on the budget key, logs it, and counts the request', async () => {
    const s = await relayOnRedis();
    await inspector.set(s.key('budget'), 'seven');
    const answer = await s.ask();
    expect(answer.status).toBe(200);
    expect(s.h.upstreamCalls).toHaveLength(1);
    expect(await inspector.type(s.key('budget'))).toBe('zset');
    expect(s.storeLogs.filter((line) => /budget held a string/.test(line))).toHaveLength(1);
  });
});

describe("a stranger's claim (defect 5)", () => {
  it('takes over a claim that has no expiry: the browser gets an answer, the key an expiry', async () => {
    const s = await relayOnRedis();
    await inspector.set(s.key('claim'), 'stranger');
    const answer = await within(s.ask(), 3_000);
    expect(answer === 'pending' ? 'pending' : answer.status).toBe(200);
    expect(s.h.upstreamCalls).toHaveLength(1);
    expect(await inspector.get(s.key('claim'))).toBeNull();
  });

  it('waits on a claim that never ends far below the browser’s 10 s, then says so honestly', async () => {
    // The wait is the upstream timeout and a second: 2 s here, 6 s by default.
    const s = await relayOnRedis({ upstreamTimeoutMs: 1_000 });
    await inspector.set(s.key('claim'), 'stranger', { expiration: { type: 'PX', value: 60_000 } });
    const answer = await within(s.ask(), 4_000);
    expect(answer).not.toBe('pending');
    if (answer === 'pending') return;
    expect(answer.status).toBe(503);
    // Which words depends on how far the wait got on a loaded machine: the claim seen (another
    // instance is asking) or not yet (still waiting); both are true, and neither is a count.
    expect(answer.json).toEqual({
      error: expect.stringMatching(/^(Another relay instance is asking|The relay is still waiting for) the analytics service/),
    });
    expect(answer.headers.get('retry-after')).toMatch(/^\d{1,2}$/);
    expect(s.h.upstreamCalls).toHaveLength(0);
  });

  it('shortens a claim kept for a day to the claim’s own life', async () => {
    const s = await relayOnRedis({ upstreamTimeoutMs: 1_000 });
    await inspector.set(s.key('claim'), 'stranger', { expiration: { type: 'PX', value: 86_400_000 } });
    await within(s.ask(), 4_000);
    expect(await inspector.pTTL(s.key('claim'))).toBeLessThanOrEqual(5_000);
  });
});

describe('encoded tokens and control characters in upstream error text (defect 7)', () => {
  const token = SHOP.token;
  const forms = [
    token,
    encodeURIComponent(token),
    Buffer.from(token).toString('base64'),
    Buffer.from(token).toString('base64url'),
    Buffer.from(`Bearer ${token}`).toString('base64'),
    token.toLowerCase(),
    token.toUpperCase(),
    Buffer.from(token).toString('hex'),
  ];

  it.each(forms.map((form, index) => [index, form]))(
    'keeps form %i out of the answer and the log, and no bidi character either',
    async (_index, form) => {
      const service = await serveOnNode(
        () =>
          new Response(JSON.stringify({ error: `invalid credentials \u202E${form}\u202C (got ${form}) \u0007` }), {
            status: 401,
            headers: { 'Content-Type': 'application/json' },
          }),
        { port: 0, graceMs: 0 },
      );
      cleanups.push(() => service.close());
      const s = await relayOnRedis({ upstream: service.url });
      const answer = await s.ask();
      expect(answer.status).toBe(502);
      const everything = `${answerText(answer)}\n${s.h.logs.join('\n')}`;
      for (const each of forms) expect(everything.toLowerCase()).not.toContain(each.toLowerCase());
      expect([...everything].filter((char) => /\p{Cf}/u.test(char) || char === '\u0007')).toEqual([]);
      expect(leakedTokens(everything)).toEqual([]);
      // Our words in public; the service's (filtered) in the log.
      expect(answer.json).toEqual({ error: expect.not.stringContaining('invalid credentials') });
      expect(s.h.logs.join('\n')).toContain('invalid credentials');
    },
  );
});
