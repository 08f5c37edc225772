// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { Gate, type GateCause } from '../src/gate.js';
import { createRelay } from '../src/relay.js';
import { MemoryStore } from '../src/store/memory-store.js';
import type { SharedAnswer } from '../src/store/relay-store.js';
import { isFresh, isServable } from '../src/website-cache.js';
import { defaultRelayConfig, SHOP, START_MS, toAnswer } from './support/relay-harness.js';
import { virtualTimers } from './support/virtual-timers.js';

/** The relay's scheduling (issue 26 §2, issue 30 §1): pure predicates, one gate with named operations, every wait on the injected timers. */

describe('the gate: what keeps an instance from asking upstream, and until when', () => {
  it.each<[string, Array<[GateCause, number]>, GateCause | null, number | null]>([
    ['nothing in the way', [], null, null],
    ['a back-off', [['back-off', 5]], 'back-off', 5],
    [
      'a spent budget past the back-off',
      [
        ['back-off', 5],
        ['budget', 9],
      ],
      'budget',
      9,
    ],
    [
      'a store down',
      [
        ['back-off', 5],
        ['store-down', 7],
      ],
      'store-down',
      7,
    ],
    [
      'a claim past everything',
      [
        ['back-off', 5],
        ['budget', 6],
        ['store-down', 7],
        ['claim', 8],
      ],
      'claim',
      8,
    ],
    [
      'a budget the store also wrote as the next attempt: named a budget',
      [
        ['back-off', 9],
        ['budget', 9],
      ],
      'budget',
      9,
    ],
    ['a back-off already over', [['back-off', -3]], null, -3],
  ])('%s', (_name, closures, holding, opensAtMs) => {
    const gate = new Gate();
    for (const [cause, untilMs] of closures) gate.close(cause, untilMs);
    expect(gate.holding(0)).toBe(holding);
    expect(gate.isOpen(0)).toBe(holding === null);
    expect(gate.opensAtMs()).toBe(opensAtMs);
  });

  it('a cause holds from close until open, even once its time has passed', () => {
    const gate = new Gate();
    gate.close('store-down', 1_000);
    expect(gate.isClosed('store-down')).toBe(true);
    expect(gate.isClosedAt('store-down', 999)).toBe(true);
    expect(gate.isClosedAt('store-down', 1_000)).toBe(false);
    expect(gate.isClosed('store-down')).toBe(true);
    gate.open('store-down');
    expect(gate.isClosed('store-down')).toBe(false);
    expect(gate.opensAtMs()).toBeNull();
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
