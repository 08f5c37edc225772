import { describe, expect, it } from 'vitest';
import { STAND_IN_KEYS } from '../../emulator/src/sources/keys.js';
import { parseRelayConfig } from '../src/config.js';
import { Redactor } from '../src/redaction.js';
import { createRelay } from '../src/relay.js';
import { fetchWebsiteReport } from '../src/sources/fetch-website-report.js';
import { recordingFetch, standInsForSuite } from './sources-stand-ins.js';

/**
 * Each source's adapter against the emulator's stand-in for its service, over real loopback HTTP.
 * Run here: the adapters' requests and the stand-ins' answers, written from each service's
 * published contract. Not run: the real Plausible, Umami, Matomo, Google and Fathom services,
 * which this machine cannot reach (docs/relay.md "Sources" says the same per service).
 */

const suite = standInsForSuite();

function websiteWith(source: Record<string, unknown>, id = 'relay-id-for-shop') {
  return parseRelayConfig({ upstream: 'https://unused.example', websites: [{ id, source }] }).websites[0]!;
}

async function readOnce(source: Record<string, unknown>) {
  const recorder = recordingFetch();
  const result = await fetchWebsiteReport({
    upstream: 'https://unused.example',
    website: websiteWith(source),
    fetch: recorder.fetch,
    now: suite.server.clock.now,
    timeoutMs: 2_000,
    redactor: new Redactor([]),
  });
  return { result, sent: recorder.sent };
}

/** The request with its origin left out and no secret in it, for the report's table. */
function described(sent: { method: string; url: string; headerNames: readonly string[] }) {
  return `${sent.method} ${sent.url.replace(suite.server.url, '{stand-in}')} [${sent.headerNames.join(', ')}]`;
}

describe('each kind asks its service as documented, and reads its answer', () => {
  const cases = [
    ['plausible', 'GET', '/sources/plausible/api/v1/stats/realtime/visitors?site_id=shop-a', ['accept', 'authorization'], 5],
    ['umami', 'GET', '/sources/umami/api/websites/shop-a/active', ['accept', 'authorization', 'x-umami-api-key'], 5],
    [
      'matomo',
      'POST',
      '/sources/matomo/index.php?module=API&method=Live.getCounters&idSite=1&lastMinutes=3&showColumns=visitors&format=JSON',
      ['accept', 'content-type'],
      undefined,
    ],
    ['ga4', 'POST', '/v1beta/properties/1:runRealtimeReport', ['accept', 'authorization', 'content-type'], undefined],
    ['fathom', 'GET', '/sources/fathom/v1/current_visitors?site_id=shop-a', ['accept', 'authorization'], undefined],
  ] as const;

  it.each(cases)('%s: %s %s', async (kind, method, path, headerNames, windowMinutes) => {
    suite.server.counts.set('shop-a', 23);
    const { result, sent } = await readOnce(suite.sources[kind]);
    const data = sent.at(-1)!;
    expect(data.method).toBe(method);
    expect(data.url).toBe(`${suite.server.url}${path}`);
    expect(data.headerNames).toEqual(headerNames);
    expect(result).toEqual({
      report: {
        currentVisitors: 23,
        websiteId: 'relay-id-for-shop',
        timestamp: new Date(suite.server.clock.nowMs).toISOString(),
        ...(windowMinutes === undefined ? {} : { windowMinutes }),
      },
    });
    // What the note reports, printed once per kind.
    console.info(`${kind}: ${sent.map(described).join(' then ')} -> ${JSON.stringify(result)}`);
  });

  it('matomo sends token_auth in the POST body, never in the URL', async () => {
    const before = suite.server.standIns.matomo.tokenInUrl;
    const { sent } = await readOnce(suite.sources.matomo);
    expect(sent[0]!.body).toBe(`token_auth=${STAND_IN_KEYS.matomo}`);
    expect(sent[0]!.url).not.toContain(STAND_IN_KEYS.matomo);
    expect(suite.server.standIns.matomo.tokenInUrl).toBe(before);
  });

  it('matomo counts lastMinutes, and says so when it is not 3', async () => {
    const { result, sent } = await readOnce({ ...suite.sources.matomo, lastMinutes: 10 });
    expect(sent[0]!.url).toContain('lastMinutes=10');
    expect(result).toMatchObject({ report: { windowMinutes: 10 } });
  });

  it('ga4 asks for activeUsers over the last `minutes` (inclusive start), and a report without rows is 0', async () => {
    suite.server.counts.set('shop-a', 0);
    const { result, sent } = await readOnce({ ...suite.sources.ga4, minutes: 5 });
    expect(JSON.parse(sent.at(-1)!.body)).toEqual({
      metrics: [{ name: 'activeUsers' }],
      minuteRanges: [{ startMinutesAgo: 4, endMinutesAgo: 0 }],
    });
    expect(result).toMatchObject({ report: { currentVisitors: 0, windowMinutes: 5 } });
    suite.server.counts.set('shop-a', 23);
  });

  it('umami self-hosted logs in with the username and password, then asks with the login token', async () => {
    const { result, sent } = await readOnce(suite.sources.umamiSelfHosted);
    expect(sent.map((request) => `${request.method} ${request.url.replace(suite.server.url, '')}`)).toEqual([
      'POST /sources/umami/api/auth/login',
      'GET /sources/umami/api/websites/shop-a/active',
    ]);
    expect(JSON.parse(sent[0]!.body)).toEqual(STAND_IN_KEYS.umamiLogin);
    expect(sent[1]!.headerNames).toContain('authorization');
    expect(result).toMatchObject({ report: { currentVisitors: 23, windowMinutes: 5 } });
  });

  it.each([
    ['2.16 and later: { visitors }', '/sources/umami/api'],
    ['2.0 to 2.15: { x }', '/sources/umami-2.15/api'],
    ['1.x: [{ x }]', '/sources/umami-1/api'],
  ])('umami answers of every version are read: %s', async (_version, base) => {
    const { result } = await readOnce({ ...suite.sources.umami, base: `${suite.server.url}${base}` });
    expect(result).toMatchObject({ report: { currentVisitors: 23 } });
  });
});

describe('through the relay, as a browser sees it', () => {
  it.each([
    ['plausible', 5],
    ['umami', 5],
    ['matomo', undefined],
    ['ga4', undefined],
    ['fathom', undefined],
  ] as const)("%s: the contract's report for the relay's website id, windowMinutes only when not 3", async (kind, windowMinutes) => {
    const relay = createRelay({
      config: { upstream: 'https://unused.example', websites: [{ id: 'my-shop', source: suite.sources[kind] } as never] },
      now: suite.server.clock.now,
      log: () => {},
    });
    const response = await relay(new Request('http://relay.test/api/v1/realtime?websiteId=my-shop'));
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      currentVisitors: 23,
      websiteId: 'my-shop',
      timestamp: new Date(suite.server.clock.nowMs).toISOString(),
      ...(windowMinutes === undefined ? {} : { windowMinutes }),
    });
  });
});
