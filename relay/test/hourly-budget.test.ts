// @vitest-environment node
import { afterEach, describe, expect, it } from 'vitest';
import { OTHER_SHOP, type RelayHarness, SHOP, START_MS, startRelayHarness } from './support/relay-harness.js';

const HOUR_MS = 3_600_000;

let h: RelayHarness | undefined;
afterEach(() => h?.close());

describe('the hourly budget counts upstream requests over a rolling hour', () => {
  it('allows `hourlyBudget` in any hour, frees each slot exactly an hour after its request, and never counts a refused one', async () => {
    // Every answer is stale a second after it arrived, so each ask past the budget is an honest 503 with Retry-After.
    h = await startRelayHarness({ config: { interval: 1, maxStale: 1, hourlyBudget: 3 } });
    const askAtMs = (ms: number) => {
      h!.clock.advanceTo(START_MS + ms);
      return h!.get(`?websiteId=${SHOP.id}`);
    };
    for (const ms of [0, 1_000, 2_000]) expect((await askAtMs(ms)).status).toBe(200);
    expect(h.upstreamCalls).toHaveLength(3);

    const spent = await askAtMs(3_000);
    expect(spent.status).toBe(503);
    // Room again when the first request leaves the hour.
    expect(spent.headers.get('retry-after')).toBe('3597');
    const almost = await askAtMs(HOUR_MS - 1);
    expect(almost.status).toBe(503);
    expect(almost.headers.get('retry-after')).toBe('1');
    expect(h.upstreamCalls).toHaveLength(3);

    // A request exactly an hour old has left the window; the refused asks took no slot.
    expect((await askAtMs(HOUR_MS)).status).toBe(200);
    expect((await askAtMs(HOUR_MS + 1_000)).status).toBe(200);
    expect((await askAtMs(HOUR_MS + 2_000)).status).toBe(200);
    expect(h.upstreamCalls).toHaveLength(6);

    // Full again with the three new requests: the next slot frees an hour after the oldest of them.
    const fullAgain = await askAtMs(HOUR_MS + 3_000);
    expect(fullAgain.status).toBe(503);
    expect(fullAgain.headers.get('retry-after')).toBe('3597');
    expect(h.upstreamCalls.map((call) => call.atMs - START_MS)).toEqual([0, 1_000, 2_000, HOUR_MS, HOUR_MS + 1_000, HOUR_MS + 2_000]);
  });
});

describe('the relay keeps to its hourly budget', () => {
  it('stops asking when the budget is spent: stale answers until maxStale, then 503 until an hour has passed', async () => {
    h = await startRelayHarness({ config: { interval: 10, maxStale: 60, hourlyBudget: 3 } });
    const askAt = (seconds: number, id: string = SHOP.id) => {
      h!.clock.advanceTo(START_MS + seconds * 1_000);
      return h!.get(`?websiteId=${id}`);
    };
    for (const seconds of [0, 10, 20]) expect((await askAt(seconds)).status).toBe(200);
    expect(h.upstreamCalls).toHaveLength(3);

    const stale = await askAt(30);
    expect(stale.status).toBe(200);
    expect(stale.json).toMatchObject({ timestamp: new Date(START_MS + 20_000).toISOString() });
    expect(h.upstreamCalls).toHaveLength(3);
    expect(h.logs).toEqual([
      '[live-visitors-relay] website "shop-a": hourly budget of 3 upstream requests spent; no request to the analytics service for 3570 s. ' +
        'Raise interval, or hourlyBudget if the plan allows.',
    ]);
    // The budget is the relay's, shared by its websites.
    const other = await askAt(31, OTHER_SHOP.id);
    expect(other.status).toBe(503);
    expect(other.json).toEqual({
      error:
        "The relay's hourly budget of 3 upstream requests is spent; the relay holds no answer younger than 60 s; it asks again in 3569 s.",
    });
    expect(other.headers.get('retry-after')).toBe('3569');

    const expired = await askAt(80);
    expect(expired.status).toBe(503);
    expect(expired.headers.get('retry-after')).toBe('3520');
    expect(h.upstreamCalls).toHaveLength(3);
    expect(h.servedByEmulator()).toBe(3);

    expect((await askAt(3_600)).status).toBe(200);
    expect(h.upstreamCalls).toHaveLength(4);
  });

  it('never sends more than the budget in any rolling hour, however often browsers ask', async () => {
    h = await startRelayHarness({ config: { interval: 20, maxStale: 60, hourlyBudget: 100 } });
    for (let seconds = 0; seconds <= 5_400; seconds += 20) {
      h.clock.advanceTo(START_MS + seconds * 1_000);
      await Promise.all([h.get(`?websiteId=${SHOP.id}`), h.get(`?websiteId=${OTHER_SHOP.id}`)]);
    }
    const times = h.upstreamCalls.map((call) => call.atMs);
    const busiestHour = Math.max(...times.map((start) => times.filter((atMs) => atMs >= start && atMs < start + HOUR_MS).length));
    expect(busiestHour).toBe(100);
    // Spent in the first 1,000 s, spent again from 1:00:00 as the first requests leave the hour.
    expect(times.length).toBe(200);
    expect(Math.max(...times) - START_MS).toBe(3_600_000 + 980_000);
  });
});
