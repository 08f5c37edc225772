// @vitest-environment node
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Answer, eventually, OTHER_SHOP, type RelayHarness, SHOP, startRelayHarness } from './support/relay-harness.js';

const BROWSERS = 1_000;
const INTERVAL_MS = 60_000;

let h: RelayHarness;
beforeEach(async () => {
  h = await startRelayHarness();
});
afterEach(() => h.close());

/**
 * `count` browsers ask at once while the service holds the relay's request (the emulator's
 * `hang` fault), so every one of them arrives before any answer exists; then the service answers.
 */
async function waveWhileUpstreamHolds(count: number, query = `?websiteId=${SHOP.id}`): Promise<Answer[]> {
  const arrivedBefore = h.arrivals();
  const callsBefore = h.upstreamCalls.length;
  h.emulator.emulator.setFault({ kind: 'hang' });
  const wave = Array.from({ length: count }, () => h.get(query));
  await eventually(() => h.arrivals() - arrivedBefore === count && h.emulator.emulator.stats().waitingRequests >= 1);
  // Everyone has asked and the single upstream request is still held: nothing else went out.
  expect(h.upstreamCalls.length - callsBefore).toBe(1);
  h.emulator.emulator.clearFault();
  return Promise.all(wave);
}

function expectOneReportForAll(answers: Answer[], currentVisitors: number) {
  expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
  expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
  expect(answers[0]!.json).toEqual({ currentVisitors, websiteId: SHOP.id, timestamp: new Date(h.clock.now()).toISOString() });
}

describe('one upstream request per website per interval', () => {
  it('answers 1,000 concurrent browsers from exactly one upstream request', async () => {
    const answers = await waveWhileUpstreamHolds(BROWSERS);
    expect(h.arrivals()).toBe(BROWSERS);
    expectOneReportForAll(answers, 0);
    expect(h.upstreamCalls).toHaveLength(1);
    expect(h.servedByEmulator()).toBe(1);
  });

  it('sends no more while the answer is fresh, and exactly one more for a second wave after the interval', async () => {
    await waveWhileUpstreamHolds(BROWSERS);
    h.clock.advance(INTERVAL_MS - 1);
    const stillFresh = await Promise.all(Array.from({ length: 100 }, () => h.get(`?websiteId=${SHOP.id}`)));
    expect(stillFresh.every((answer) => answer.status === 200)).toBe(true);
    expect(h.upstreamCalls).toHaveLength(1);

    h.clock.advance(1);
    h.emulator.emulator.recordPageview(SHOP.id, 'visitor-1');
    const second = await waveWhileUpstreamHolds(BROWSERS);
    expect(h.upstreamCalls).toHaveLength(2);
    expect(h.servedByEmulator()).toBe(2);
    expectOneReportForAll(second, 1);
  });

  it('keeps one feed per website: two websites asked at once cost one request each', async () => {
    h.emulator.emulator.setFault({ kind: 'hang' });
    const wave = [SHOP.id, OTHER_SHOP.id].flatMap((id) => Array.from({ length: 200 }, () => h.get(`?websiteId=${id}`)));
    await eventually(() => h.arrivals() === 400 && h.emulator.emulator.stats().waitingRequests === 2);
    h.emulator.emulator.clearFault();
    const answers = await Promise.all(wave);
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(h.upstreamCalls.map((call) => new URL(call.url).searchParams.get('websiteId')).sort()).toEqual([SHOP.id, OTHER_SHOP.id]);
  });

  it('sends nothing upstream for websites it does not relay, even ones the service knows', async () => {
    const answers = await Promise.all(
      ['not-relayed', 'unknown-shop', 'SHOP-A', `${SHOP.id} `, '../realtime'].flatMap((id) =>
        Array.from({ length: 50 }, () => h.get(`?websiteId=${encodeURIComponent(id)}`)),
      ),
    );
    expect(answers.every((answer) => answer.status === 404)).toBe(true);
    expect(answers[0]!.json).toEqual({ error: 'Website not found' });
    expect(h.upstreamCalls).toHaveLength(0);
    expect(h.servedByEmulator()).toBe(0);
  });
});
