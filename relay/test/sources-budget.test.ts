import { describe, expect, it, vi } from 'vitest';
import { createRelay } from '../src/relay.js';
import { standInsForSuite } from './sources-stand-ins.js';

/**
 * How often each source asks its service, on an injected clock shared by the relay and the
 * stand-ins (the requests themselves cross real loopback HTTP): one request per interval however
 * many shoppers look, within the service's documented limit (the stand-ins refuse past it), GA4
 * access tokens fetched once per token lifetime, and a lost log-in or token renewed on 401.
 */

const HOUR_S = 3_600;
// Thousands of browser requests and a few hundred loopback ones per case.
vi.setConfig({ testTimeout: 60_000 });
const suite = standInsForSuite();

/** A relay reading `source` alone, on the stand-ins' clock, with a budget that never refuses first. */
function relayFor(source: Record<string, unknown>, interval = 60) {
  return createRelay({
    config: { upstream: 'https://unused.example', websites: [{ id: 'my-shop', source } as never], interval, hourlyBudget: 10_000 },
    now: suite.server.clock.now,
    log: () => {},
  });
}

/**
 * `shoppers` browsers, each asking the relay every `pollSeconds` at its own offset, for `seconds`
 * of the shared clock; how many answers came with each status.
 */
async function browse(
  relay: ReturnType<typeof createRelay>,
  { shoppers, seconds, pollSeconds = 60 }: { shoppers: number; seconds: number; pollSeconds?: number },
) {
  const startMs = suite.server.clock.nowMs;
  const statuses = new Map<number, number>();
  for (let round = 0; round * pollSeconds < seconds; round += 1) {
    for (let shopper = 0; shopper < shoppers; shopper += 1) {
      suite.server.clock.nowMs = startMs + Math.round((round * pollSeconds + (shopper * pollSeconds) / shoppers) * 1000);
      const response = await relay(new Request('http://relay.test/api/v1/realtime?websiteId=my-shop'));
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      await response.body?.cancel();
    }
  }
  suite.server.clock.nowMs = startMs + seconds * 1000;
  return statuses;
}

describe("50 shoppers for an hour: one upstream request per interval, within the service's limit", () => {
  it.each(['plausible', 'umami', 'matomo', 'ga4', 'fathom'] as const)('%s', async (kind) => {
    const state = suite.server.standIns.state;
    const before = { requests: state.requests[kind], refused: state.refused[kind] };
    const statuses = await browse(relayFor(suite.sources[kind]), { shoppers: 50, seconds: HOUR_S });
    const requests = state.requests[kind] - before.requests;
    console.info(
      `${kind}: ${requests} upstream requests in an hour for 50 shoppers polling every 60 s (answers: ${JSON.stringify(Object.fromEntries(statuses))})`,
    );
    expect(statuses).toEqual(new Map([[200, 50 * 60]]));
    // One per 60 s interval: 60 in the hour, and the first one.
    expect(requests).toBeGreaterThanOrEqual(59);
    expect(requests).toBeLessThanOrEqual(61);
    expect(state.refused[kind] - before.refused).toBe(0);
  });
});

describe('a relay interval below what the service allows', () => {
  it.each([
    ['plausible', 10, 300],
    ['fathom', 30, 60],
  ] as const)(
    "%s is asked at most once every %i s and %i times an hour, whatever the relay's interval",
    async (kind, minIntervalS, budget) => {
      const state = suite.server.standIns.state;
      const before = { requests: state.requests[kind], refused: state.refused[kind] };
      await browse(relayFor(suite.sources[kind], 1), { shoppers: 2, seconds: HOUR_S, pollSeconds: 1 });
      const requests = state.requests[kind] - before.requests;
      console.info(`${kind} with interval 1 s: ${requests} upstream requests in an hour`);
      expect(requests).toBeLessThanOrEqual(Math.min(HOUR_S / minIntervalS + 1, budget));
      expect(requests).toBeGreaterThan(budget / 2);
      expect(state.refused[kind] - before.refused).toBe(0);
    },
  );
});

describe('GA4 access tokens', () => {
  it('are fetched once per token lifetime (3599 s, renewed a minute early): 2 in the first hour, 4 in 3 hours', async () => {
    const before = suite.server.standIns.state.tokenRequests;
    const relay = relayFor(suite.sources.ga4);
    await browse(relay, { shoppers: 10, seconds: HOUR_S });
    const inFirstHour = suite.server.standIns.state.tokenRequests - before;
    await browse(relay, { shoppers: 10, seconds: 2 * HOUR_S });
    const inThreeHours = suite.server.standIns.state.tokenRequests - before;
    console.info(`ga4: ${inFirstHour} token fetch(es) in the first hour, ${inThreeHours} in three hours`);
    // Fetched at 0 s, then before each lifetime ends (3539 s after the last one).
    expect(inFirstHour).toBe(2);
    expect(inThreeHours).toBe(Math.ceil((3 * HOUR_S) / (3_599 - 60)));
  });

  it('are renewed at once when revoked (a 401), and the count still comes', async () => {
    const state = suite.server.standIns.state;
    const relay = createRelay({
      config: { upstream: 'https://unused.example', websites: [{ id: 'my-shop', source: suite.sources.ga4 } as never] },
      now: suite.server.clock.now,
      log: () => {},
    });
    const ask = () => relay(new Request('http://relay.test/api/v1/realtime?websiteId=my-shop'));
    expect((await ask()).status).toBe(200);
    const tokens = state.tokenRequests;
    suite.server.standIns.ga4.revokeAccessTokens();
    suite.server.clock.nowMs += 61_000;
    const answer = await ask();
    expect(answer.status).toBe(200);
    expect(state.tokenRequests - tokens).toBe(1);
  });
});

describe('Umami self-hosted', () => {
  it('logs in once, keeps the token, and logs in again only after a 401', async () => {
    const state = suite.server.standIns.state;
    const logins = state.logins;
    const relay = relayFor(suite.sources.umamiSelfHosted);
    await browse(relay, { shoppers: 5, seconds: 600 });
    expect(state.logins - logins).toBe(1);
    suite.server.standIns.umami.revokeLoginTokens();
    const statuses = await browse(relay, { shoppers: 5, seconds: 600 });
    expect(state.logins - logins).toBe(2);
    expect(statuses).toEqual(new Map([[200, 50]]));
  });
});
