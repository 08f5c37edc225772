// @vitest-environment node
import { BetaAnalyticsDataClient, protos } from '@google-analytics/data';
import { isUmamiApiError, UmamiClient } from '@umami/api-client';
import { OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../relay/src/redaction.js';
import { sourceCall } from '../../relay/src/sources/call.js';
import { fetchAccessToken, type ServiceAccountKey } from '../../relay/src/sources/ga4-service-account.js';
import { STAND_IN_KEYS } from '../src/sources/keys.js';
import { DEMO, FREE, startTestServer, type TestServer } from './support/test-server.js';

/**
 * The emulator's stand-ins, checked by the services' own official clients where one exists:
 * Google's `@google-analytics/data` (7) over its REST transport,
 * whose protos encode the request and decode the answer, and Umami's `@umami/api-client`,
 * generated from Umami's OpenAPI description. What this proves: the stand-ins speak the shapes
 * those clients send and read. What it does not: that Google's or Umami's servers answer as the
 * stand-ins do in every case (they cannot be reached from here).
 */

const GA4_REQUEST = {
  property: 'properties/1',
  metrics: [{ name: 'activeUsers' }],
  minuteRanges: [{ startMinutesAgo: 2, endMinutesAgo: 0 }],
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  for (const visitor of ['v1', 'v2', 'v3']) {
    const answer = await server.postPageview({ websiteId: DEMO.websiteId, visitorId: visitor }, { Authorization: `Bearer ${DEMO.token}` });
    expect(answer.status).toBeLessThan(300);
  }
});
afterAll(() => server.close());

describe("Google's @google-analytics/data client against the GA4 stand-in", () => {
  /** The relay's own service-account flow gets the token (Google's gtoken always posts to Google, whatever the key's token_uri says). */
  async function accessToken(): Promise<string> {
    const { ga4 } = (await (await fetch(`${server.url}/__emulator/sources/${DEMO.websiteId}`)).json()) as {
      ga4: { credentials: ServiceAccountKey };
    };
    const token = await fetchAccessToken(
      ga4.credentials,
      sourceCall({ fetch, now: server.time.now, timeoutMs: 5_000, redactor: new Redactor([]) }, new Redactor([])),
    );
    if ('failure' in token) throw new Error(token.failure.reason);
    return token.token;
  }

  async function client(): Promise<BetaAnalyticsDataClient> {
    const authClient = new OAuth2Client();
    // The library judges expiry by the real clock; the stand-in by the emulator's fake one, which issued the token.
    authClient.setCredentials({ access_token: await accessToken(), expiry_date: Date.now() + 3_600_000 });
    const port = Number(new URL(server.url).port);
    return new BetaAnalyticsDataClient({ apiEndpoint: '127.0.0.1', port, protocol: 'http', fallback: true, authClient } as never);
  }

  it('runRealtimeReport: activeUsers as a string in one row', async () => {
    const [response] = await (await client()).runRealtimeReport(GA4_REQUEST);
    expect(response.metricHeaders?.[0]?.name).toBe('activeUsers');
    expect(response.rows?.[0]?.metricValues?.[0]?.value).toBe('3');
  });

  it("the request the relay sends is the Data API's own message, field for field", () => {
    const sent = { metrics: [{ name: 'activeUsers' }], minuteRanges: [{ startMinutesAgo: 2, endMinutesAgo: 0 }] };
    const message = protos.google.analytics.data.v1beta.RunRealtimeReportRequest.fromObject(sent);
    // Unknown or misspelt fields would be dropped by the proto, and the round trip would differ.
    expect(protos.google.analytics.data.v1beta.RunRealtimeReportRequest.toObject(message)).toEqual(sent);
  });

  it('the token endpoint refuses an assertion that is not base64url with 400 invalid_grant, as Google does (no crash)', async () => {
    const answer = await server.request('/sources/ga4/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: '!!!.***.%%%' }).toString(),
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: 'invalid_grant' });
  });

  it.each([
    'null',
    '[]',
    '{"metrics":[{"name":"activeUsers"}],"minuteRanges":5}',
    '{"metrics":[{"name":"activeUsers"}],"minuteRanges":[null]}',
  ])('runRealtimeReport refuses the body %s with 400 INVALID_ARGUMENT (no crash)', async (body) => {
    const answer = await server.request('/v1beta/properties/1:runRealtimeReport', {
      method: 'POST',
      headers: { Authorization: `Bearer ${await accessToken()}`, 'Content-Type': 'application/json' },
      body,
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
  });

  it('an unknown property is PERMISSION_DENIED (403), as Google answers it', async () => {
    // The client names the answer's status by its gRPC code (7 is PERMISSION_DENIED) and keeps the HTTP status beside it.
    await expect((await client()).runRealtimeReport({ ...GA4_REQUEST, property: 'properties/999' })).rejects.toMatchObject({
      code: 7,
      httpStatusCode: 403,
      message: expect.stringContaining('sufficient permissions'),
    });
  });
});

describe("Umami's @umami/api-client against the Umami stand-in", () => {
  const baseUrl = () => `${server.url}/sources/umami/api`;

  it('getWebsiteActive with a Cloud API key: { visitors }', async () => {
    const umami = new UmamiClient({ baseUrl: baseUrl(), apiKey: STAND_IN_KEYS.umami });
    expect(await umami.getWebsiteActive({ websiteId: DEMO.websiteId })).toEqual({ visitors: 3 });
  });

  it('login, then getWebsiteActive with the login token', async () => {
    const login = (await new UmamiClient({ baseUrl: baseUrl() }).login({ ...STAND_IN_KEYS.umamiLogin })) as { token: string };
    expect(login.token).toMatch(/^\w{32,}$/);
    expect(await new UmamiClient({ baseUrl: baseUrl(), token: login.token }).getWebsiteActive({ websiteId: DEMO.websiteId })).toEqual({
      visitors: 3,
    });
  });

  it.each([
    ['a wrong key', STAND_IN_KEYS.plausible, DEMO.websiteId, 401],
    // Umami's active route answers 401 for a website the credential cannot view, unknown ones included.
    ['an unknown website', STAND_IN_KEYS.umami, 'no-such-website', 401],
  ])('%s: UmamiApiError %i', async (_name, apiKey, websiteId, status) => {
    const error = await new UmamiClient({ baseUrl: baseUrl(), apiKey }).getWebsiteActive({ websiteId }).catch((thrown: unknown) => thrown);
    expect(isUmamiApiError(error) && error.status).toBe(status);
  });
});

describe('the stand-ins without an official client, against their documented contract', () => {
  it('Plausible: a bare integer; a wrong key 401 with its error object', async () => {
    const url = `/sources/plausible/api/v1/stats/realtime/visitors?site_id=${DEMO.websiteId}`;
    const good = await server.request(url, { headers: { Authorization: `Bearer ${STAND_IN_KEYS.plausible}` } });
    expect([good.status, good.text]).toEqual([200, '3']);
    const bad = await server.request(url, { headers: { Authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.text)).toHaveProperty('error');
    // As Plausible's AuthorizeStatsApiPlug answers: no key, then the site checked after the key.
    const keyless = await server.request(url);
    expect([keyless.status, JSON.parse(keyless.text).error]).toEqual([401, expect.stringMatching(/^Missing API key/)]);
    const ask = (query: string) =>
      server.request(`/sources/plausible/api/v1/stats/realtime/visitors${query}`, {
        headers: { Authorization: `Bearer ${STAND_IN_KEYS.plausible}` },
      });
    expect((await ask('')).status).toBe(400);
    const unknown = await ask('?site_id=no-such-site.example');
    expect([unknown.status, JSON.parse(unknown.text).error]).toEqual([401, expect.stringMatching(/^Invalid API key or site ID/)]);
  });

  it('Fathom: { total }, and past 10 requests a minute 429 with Retry-After', async () => {
    const ask = () =>
      server.request(`/sources/fathom/v1/current_visitors?site_id=${DEMO.websiteId}`, {
        headers: { Authorization: `Bearer ${STAND_IN_KEYS.fathom}` },
      });
    const first = await ask();
    expect(JSON.parse(first.text)).toEqual({ total: 3 });
    for (let request = 2; request <= 10; request += 1) expect((await ask()).status).toBe(200);
    const eleventh = await ask();
    expect(eleventh.status).toBe(429);
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('Matomo: counters as strings in one row (only showColumns; numbers 0 after no visits); a wrong token_auth is an error with status 200', async () => {
    const url = '/sources/matomo/index.php?module=API&method=Live.getCounters&lastMinutes=3&format=JSON';
    const post = (token: string, query = '&idSite=1') =>
      server.request(`${url}${query}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `token_auth=${token}`,
      });
    expect(JSON.parse((await post(STAND_IN_KEYS.matomo)).text)).toEqual([
      { visits: '3', actions: '6', visitors: '3', visitsConverted: '0' },
    ]);
    expect(JSON.parse((await post(STAND_IN_KEYS.matomo, '&idSite=1&showColumns=visitors')).text)).toEqual([{ visitors: '3' }]);
    expect(JSON.parse((await post(STAND_IN_KEYS.matomo, '&idSite=1&hideColumns=actions,visitsConverted')).text)).toEqual([
      { visits: '3', visitors: '3' },
    ]);
    // A website without visitors: Matomo counts the visits and leaves the other queries out.
    const free = JSON.parse((await server.control('GET', `/sources/${FREE.websiteId}`)).text) as { matomo: { siteId: string } };
    expect(JSON.parse((await post(STAND_IN_KEYS.matomo, `&idSite=${free.matomo.siteId}`)).text)).toEqual([
      { visits: '0', actions: 0, visitors: 0, visitsConverted: 0 },
    ]);
    const wrong = await post('ffffffffffffffffffffffffffffffff');
    expect(wrong.status).toBe(200);
    expect(JSON.parse(wrong.text)).toMatchObject({ result: 'error' });
  });

  it("GET /__emulator/sources/{id} gives each kind's source as a shop would paste it", async () => {
    const pasted = JSON.parse((await server.control('GET', `/sources/${DEMO.websiteId}`)).text) as Record<
      string,
      { kind: string; base: string }
    >;
    expect(Object.keys(pasted)).toEqual(['plausible', 'umami', 'matomo', 'ga4', 'fathom']);
    expect(pasted.umami).toMatchObject({ kind: 'umami', base: `${server.url}/sources/umami/api`, websiteId: DEMO.websiteId });
  });
});
