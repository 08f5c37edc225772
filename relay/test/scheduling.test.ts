// @vitest-environment node
import { describe, expect, it } from 'vitest';
import type { Timers } from '../../src/contract/timers.js';
import { createRelay } from '../src/relay.js';
import { MemoryStore } from '../src/store/memory-store.js';
import type { SharedAnswer } from '../src/store/relay-store.js';
import { type Gate, isFresh, isServable, notBefore } from '../src/website-cache.js';
import { defaultRelayConfig, SHOP, START_MS, toAnswer } from './support/relay-harness.js';

/** The relay's scheduling (issue 26 §2): pure predicates, one "not before" gate, every wait on the injected timers. */

const NEVER = Number.NEGATIVE_INFINITY;
const OPEN: Gate = { 'back-off': NEVER, budget: NEVER, 'store-down': NEVER, claim: NEVER };

describe('notBefore: the latest of the four times, and its cause', () => {
  it.each<[string, Partial<Gate>, { atMs: number; reason: string }]>([
    ['nothing in the way', {}, { atMs: NEVER, reason: 'back-off' }],
    ['a back-off', { 'back-off': 5 }, { atMs: 5, reason: 'back-off' }],
    ['a spent budget past the back-off', { 'back-off': 5, budget: 9 }, { atMs: 9, reason: 'budget' }],
    ['a store down', { 'back-off': 5, 'store-down': 7 }, { atMs: 7, reason: 'store-down' }],
    ['a claim past everything', { 'back-off': 5, budget: 6, 'store-down': 7, claim: 8 }, { atMs: 8, reason: 'claim' }],
  ])('%s', (_name, times, expected) => {
    expect(notBefore({ ...OPEN, ...times })).toEqual(expected);
  });
});

describe('isFresh and isServable', () => {
  const answer: SharedAnswer = { body: '{}', etag: '"e"', fetchedAtMs: 1_000 };
  it.each([
    [1_000, true, true],
    [1_999, true, true],
    [2_000, false, true],
    [10_999, false, true],
    [11_000, false, false],
  ])('at %i ms: fresh %s, servable %s (interval 1 s, maxStale 10 s)', (nowMs, fresh, servable) => {
    expect(isFresh(answer, nowMs, 1_000)).toBe(fresh);
    expect(isServable(answer, nowMs, 10_000)).toBe(servable);
    expect(isFresh(null, nowMs, 1_000) || isServable(null, nowMs, 10_000)).toBe(false);
  });
});

/**
 * Timers on a virtual clock of their own: callbacks run in the order they fall due, one per
 * macrotask (so the work each starts can schedule the next), and none waits for real time.
 */
function virtualTimers(): Pick<Timers, 'after'> & { readonly waits: number[] } {
  let virtualNowMs = 0;
  let order = 0;
  const due: Array<{ atMs: number; order: number; callback: () => void }> = [];
  let pumping = false;
  const pump = () => {
    setImmediate(() => {
      due.sort((a, b) => a.atMs - b.atMs || a.order - b.order);
      const next = due.shift();
      if (next) {
        virtualNowMs = next.atMs;
        next.callback();
      }
      if (due.length > 0) pump();
      else pumping = false;
    });
  };
  const waits: number[] = [];
  return {
    waits,
    after(delayMs, callback) {
      waits.push(delayMs);
      const entry = { atMs: virtualNowMs + delayMs, order: order++, callback };
      due.push(entry);
      if (!pumping) {
        pumping = true;
        pump();
      }
      return () => {
        const index = due.indexOf(entry);
        if (index !== -1) due.splice(index, 1);
      };
    },
  };
}

describe('waiting on another instance', () => {
  it('ends on the injected timers even when the injected clock stands still, and says why', async () => {
    const store = new MemoryStore(() => START_MS);
    // Another instance holds the claim and never writes.
    expect(await store.claim(SHOP.id, 'another-instance', 60_000)).toBe(true);
    const timers = virtualTimers();
    let upstreamCalls = 0;
    const relay = createRelay({
      config: defaultRelayConfig('https://analytics.example'),
      store,
      now: () => START_MS,
      timers,
      fetch: async () => {
        upstreamCalls += 1;
        return Response.json({});
      },
      log: () => {},
    });
    const answer = await toAnswer(await relay(new Request(`http://relay.test/api/v1/realtime?websiteId=${SHOP.id}`)));
    expect(answer.status).toBe(503);
    expect(answer.json).toEqual({ error: expect.stringMatching(/^Another relay instance is asking the analytics service/) });
    expect(answer.headers.get('retry-after')).toBe('1');
    // The browser's own bound (6.5 s), and the wait on the claim: the default upstream timeout (5 s) and a second, in looks of 100 ms.
    expect(timers.waits).toEqual([6_500, ...Array.from({ length: 60 }, () => 100)]);
    expect(upstreamCalls).toBe(0);

    // Asked again while the claim lasts: told at once, no second wait.
    const again = await toAnswer(await relay(new Request(`http://relay.test/api/v1/realtime?websiteId=${SHOP.id}`)));
    expect(again.status).toBe(503);
    expect(timers.waits.filter((ms) => ms === 100)).toHaveLength(60);
  });
});
