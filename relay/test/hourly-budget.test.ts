// @vitest-environment node
import { afterEach, describe, expect, it } from 'vitest';
import { HOUR_MS, HourlyBudget } from '../../src/server/relay/hourly-budget.js';
import { OTHER_SHOP, SHOP, START_MS, startRelayHarness, type RelayHarness } from './support/relay-harness.js';

let h: RelayHarness | undefined;
afterEach(() => h?.close());

describe('HourlyBudget', () => {
  it('allows `limit` requests in any rolling hour and says when the next one fits', () => {
    const budget = new HourlyBudget(3);
    expect([0, 10, 20].map((atMs) => budget.tryTake(atMs))).toEqual([true, true, true]);
    expect(budget.tryTake(30)).toBe(false);
    expect(budget.used(30)).toBe(3);
    expect(budget.hasRoom(30)).toBe(false);
    expect(budget.nextRoomAt(30)).toBe(HOUR_MS);
    // A request exactly an hour old has left the window.
    expect(budget.hasRoom(HOUR_MS - 1)).toBe(false);
    expect(budget.tryTake(HOUR_MS)).toBe(true);
    expect(budget.nextRoomAt(HOUR_MS)).toBe(HOUR_MS + 10);
    expect(budget.used(HOUR_MS + 15)).toBe(2);
    expect(budget.nextRoomAt(HOUR_MS + 15)).toBe(HOUR_MS + 15);
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
      error: 'The relay\'s hourly budget of 3 upstream requests is spent; the relay holds no answer younger than 60 s; it asks again in 3569 s.',
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
  }, 20_000);
});
