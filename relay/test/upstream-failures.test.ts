// @vitest-environment node
import { afterEach, describe, expect, it } from 'vitest';
import type { Fault } from '../../emulator/src/index.js';
import { type Answer, type RelayHarness, SHOP, START_MS, startRelayHarness } from './support/relay-harness.js';

const SECOND = 1_000;
const query = `?websiteId=${SHOP.id}`;

let h: RelayHarness | undefined;
afterEach(() => h?.close());

async function harness(options: Parameters<typeof startRelayHarness>[0] = {}): Promise<RelayHarness> {
  h = await startRelayHarness(options);
  return h;
}

/** Moves the shared clock to `seconds` after the start, then asks the relay once. */
async function askAt(seconds: number): Promise<Answer> {
  h!.clock.advanceTo(START_MS + seconds * SECOND);
  return h!.get(query);
}

const reportAt = (seconds: number, currentVisitors = 0) => ({
  currentVisitors,
  websiteId: SHOP.id,
  timestamp: new Date(START_MS + seconds * SECOND).toISOString(),
});

describe('upstream failures: stale, then an honest error', () => {
  it('serves the last good answer until maxStale, backs off meanwhile, then answers 502 with Retry-After, and recovers', async () => {
    const { emulator, upstreamCalls, logs } = await harness();
    expect((await askAt(0)).json).toEqual(reportAt(0));

    emulator.emulator.setFault({ kind: 'server-error' });
    const stale = await askAt(60);
    expect(stale.status).toBe(200);
    expect(stale.json).toEqual(reportAt(0));
    expect(upstreamCalls).toHaveLength(2);
    // Fresh for one interval from the fetch, and Age says all of it is gone: caches and the widget see it stale.
    expect(stale.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=60, stale-if-error=540');
    expect(stale.headers.get('age')).toBe('60');
    expect(logs.at(-1)).toBe(
      '[live-visitors-relay] website "shop-a": the analytics service answered 500; it said "Internal server error"; ' +
        'serving the answer from 60 s ago; next attempt in 120 s (failure 1 in a row)',
    );

    // Back-off: 2, 4, 8 intervals between attempts, so a failing service sees fewer requests than a healthy one.
    expect((await askAt(179)).json).toEqual(reportAt(0));
    expect(upstreamCalls).toHaveLength(2);
    expect((await askAt(180)).json).toEqual(reportAt(0));
    expect(upstreamCalls).toHaveLength(3);
    expect((await askAt(419)).status).toBe(200);
    expect(upstreamCalls).toHaveLength(3);
    expect((await askAt(420)).json).toEqual(reportAt(0));
    expect(upstreamCalls).toHaveLength(4);
    expect((await askAt(599)).json).toEqual(reportAt(0));

    const expired = await askAt(600);
    expect(expired.status).toBe(502);
    expect(expired.json).toEqual({
      error: 'The analytics service answered 500; the relay holds no answer younger than 600 s; it asks again in 300 s.',
    });
    expect(expired.headers.get('retry-after')).toBe('300');
    expect(expired.headers.get('cache-control')).toBe('no-store');
    expect(upstreamCalls).toHaveLength(4);

    emulator.emulator.clearFault();
    h!.clock.advanceTo(START_MS + 900 * SECOND);
    emulator.emulator.recordPageview(SHOP.id, 'back');
    const recovered = await askAt(900);
    expect(recovered.status).toBe(200);
    expect(recovered.json).toEqual(reportAt(900, 1));
    expect(upstreamCalls).toHaveLength(5);
    expect(logs.at(-1)).toBe('[live-visitors-relay] website "shop-a": the analytics service answers again, after 3 failed request(s)');
  });

  it.each<[string, Fault]>([
    ['an HTML page', { kind: 'html' }],
    ['truncated JSON', { kind: 'invalid-json' }],
    ['a negative count', { kind: 'invalid-count' }],
    ['a fractional count', { kind: 'invalid-count', value: 1.5 }],
    ['a count as text', { kind: 'invalid-count', value: '12' }],
    ['a timestamp without milliseconds', { kind: 'invalid-timestamp', value: '2025-01-15T12:00:00Z' }],
    ['another website', { kind: 'wrong-website' }],
    ['no count at all', { kind: 'missing-field' }],
    ['a body that breaks off', { kind: 'reset' }],
    ['a 502 page of a proxy', { kind: 'bad-gateway' }],
    ['a 503 maintenance page', { kind: 'unavailable' }],
  ])('never passes on %s: 502 without an answer, the last good one with', async (_name, fault) => {
    const { emulator, upstreamCalls } = await harness();
    emulator.emulator.setFault(fault);
    const first = await askAt(0);
    expect(first.status).toBe(502);
    expect(first.json).toEqual({
      error: expect.stringMatching(/^The analytics service .+; the relay holds no answer younger than 600 s; it asks again in 120 s\.$/),
    });
    expect(first.headers.get('retry-after')).toBe('120');

    emulator.emulator.clearFault();
    expect((await askAt(120)).json).toEqual(reportAt(120));
    emulator.emulator.setFault(fault);
    const stale = await askAt(180);
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(JSON.stringify(reportAt(120)));
    expect(upstreamCalls).toHaveLength(3);
  });

  it("honours the service's Retry-After on a 429, and answers 503 when it has nothing to fall back on", async () => {
    const { emulator, upstreamCalls, logs } = await harness();
    emulator.emulator.setFault({ kind: 'rate-limited', retryAfterSeconds: 300 });
    const refused = await askAt(0);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('300');
    expect(refused.json).toEqual({
      error:
        'The analytics service answered 429' +
        ": the plan's hourly limit is used up; the relay holds no answer younger than 600 s; it asks again in 300 s.",
    });
    expect(logs).toHaveLength(1);

    emulator.emulator.clearFault();
    expect((await askAt(299)).status).toBe(503);
    expect(upstreamCalls).toHaveLength(1);
    expect((await askAt(300)).json).toEqual(reportAt(300));
    expect(upstreamCalls).toHaveLength(2);
  });

  it('answers 504 when the service does not answer in time, and lets go of the held request', async () => {
    const { emulator, upstreamCalls } = await harness({ relay: { upstreamTimeoutMs: 150 } });
    emulator.emulator.setFault({ kind: 'hang' });
    const timedOut = await askAt(0);
    expect(timedOut.status).toBe(504);
    expect(timedOut.json).toEqual({
      error: 'The analytics service did not answer within 0.15 s; the relay holds no answer younger than 600 s; it asks again in 120 s.',
    });
    expect(upstreamCalls).toHaveLength(1);
    emulator.emulator.clearFault();
  });

  it('answers 502 when the service cannot be reached at all', async () => {
    const { emulator } = await harness();
    await emulator.close();
    const unreachable = await askAt(0);
    expect(unreachable.status).toBe(502);
    expect(unreachable.json).toEqual({
      error:
        'The analytics service could not be reached (ECONNREFUSED); the relay holds no answer younger than 600 s; it asks again in 120 s.',
    });
  });

  it("says which setting to fix when the service refuses the relay's token or website", async () => {
    const { emulator, logs } = await harness();
    emulator.emulator.setFault({ kind: 'unauthorized' });
    const refused = await askAt(0);
    expect(refused.status).toBe(502);
    expect(refused.json).toEqual({
      error: expect.stringContaining("answered 401: check this website's token in the relay config"),
    });
    // The service's own words only in the log (issue 25: answers carry the relay's words only).
    expect(JSON.stringify(refused.json)).not.toContain('Missing or invalid authorization header');
    expect(logs[0]).toContain(
      `answered 401: check this website's token in the relay config; it said "Missing or invalid authorization header. Expected: Bearer <token>"`,
    );

    emulator.emulator.setFault({ kind: 'not-found' });
    const missing = await askAt(120);
    expect(missing.json).toEqual({
      error: expect.stringContaining("answered 404: check this website's id in the relay config"),
    });
  });
});
