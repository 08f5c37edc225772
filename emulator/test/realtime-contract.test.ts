// @vitest-environment node
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, DEMO, FREE, startTestServer, type TestServer } from './support/test-server.js';

const UNAUTHORIZED = 'Missing or invalid authorization header. Expected: Bearer <token>';
const ISO_MILLIS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => server.emulator.reset());

const demoReport = () => server.realtime(`?websiteId=${DEMO.websiteId}`, bearer(DEMO.token));

describe('GET /api/v1/realtime: the report', () => {
  it('answers 200 with currentVisitors, the requested websiteId and the collection time as JSON', async () => {
    server.emulator.recordPageview(DEMO.websiteId, 'visitor-a');
    const answer = await demoReport();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.json).toEqual({
      currentVisitors: 1,
      websiteId: DEMO.websiteId,
      timestamp: new Date(server.time.now()).toISOString(),
    });
    expect((answer.json as { timestamp: string }).timestamp).toMatch(ISO_MILLIS_UTC);
  });

  it('counts each visitor once however many pageviews it made', async () => {
    for (let pageview = 0; pageview < 5; pageview += 1) {
      server.emulator.recordPageview(DEMO.websiteId, 'visitor-a');
      server.time.advance(10_000);
    }
    server.emulator.recordPageview(DEMO.websiteId, 'visitor-b');
    server.emulator.recordPageview(DEMO.websiteId, 'visitor-c');
    expect((await demoReport()).json).toMatchObject({ currentVisitors: 3 });
  });

  it('counts a pageview 2:59 old but not one 3:01 old', async () => {
    server.emulator.recordPageview(DEMO.websiteId, 'visitor-a');
    server.time.advance(2 * 60_000 + 59_000);
    expect((await demoReport()).json).toMatchObject({ currentVisitors: 1 });
    server.time.advance(2_000);
    expect((await demoReport()).json).toMatchObject({ currentVisitors: 0 });
  });

  it('counts a pageview exactly 3:00 old, and stops a millisecond later', async () => {
    server.emulator.recordPageview(DEMO.websiteId, 'visitor-a');
    server.time.advance(3 * 60_000);
    expect((await demoReport()).json).toMatchObject({ currentVisitors: 1 });
    server.time.advance(1);
    expect((await demoReport()).json).toMatchObject({ currentVisitors: 0 });
  });

  it('keeps a visitor current as long as its latest pageview is', async () => {
    server.emulator.recordPageview(DEMO.websiteId, 'visitor-a');
    server.time.advance(2 * 60_000);
    server.emulator.recordPageview(DEMO.websiteId, 'visitor-a');
    server.time.advance(2 * 60_000);
    expect((await demoReport()).json).toMatchObject({ currentVisitors: 1 });
  });

  it('counts the visitors of the requested website only', async () => {
    server.emulator.recordPageview(FREE.websiteId, 'visitor-a');
    server.emulator.recordPageview(FREE.websiteId, 'visitor-b');
    server.emulator.recordPageview(DEMO.websiteId, 'visitor-a');
    expect((await demoReport()).json).toMatchObject({ currentVisitors: 1 });
    expect((await server.realtime(`?websiteId=${FREE.websiteId}`, bearer(FREE.token))).json).toMatchObject({ currentVisitors: 2 });
  });

  it('ignores query parameters it does not know, such as a cache buster', async () => {
    const answer = await server.realtime(`?websiteId=${DEMO.websiteId}&_=12345`, bearer(DEMO.token));
    expect(answer.status).toBe(200);
  });

  it('says Cache-Control: no-store, as a live count must not be cached', async () => {
    expect((await demoReport()).headers.get('cache-control')).toBe('no-store');
  });
});

describe('GET /api/v1/realtime: errors of docs/realtime-api.md', () => {
  it.each([
    ['no Authorization header', undefined],
    ['an unknown token', bearer('not-a-real-token')],
  ])('answers 401 with the spec message for %s', async (_case, headers) => {
    const answer = await server.realtime(`?websiteId=${DEMO.websiteId}`, headers);
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ error: UNAUTHORIZED });
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('answers 400 "websiteId is required" when the parameter is missing', async () => {
    const answer = await server.realtime('', bearer(DEMO.token));
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 'websiteId is required' });
  });

  it('answers 404 "Website not found" for a website that does not exist', async () => {
    const answer = await server.realtime('?websiteId=no-such-shop', bearer(DEMO.token));
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error: 'Website not found' });
  });

  it('answers 401 to a valid token asking for another website', async () => {
    const answer = await server.realtime(`?websiteId=${FREE.websiteId}`, bearer(DEMO.token));
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ error: UNAUTHORIZED });
  });

  it.each([
    ['a wrong token of the same length', 'demo-tokex'],
    ['a wrong token of another length', 'demo-token-but-longer'],
    ['a prefix of the token', 'demo-tok'],
  ])('refuses %s with 401 (tokens are compared as digests)', async (_case, token) => {
    expect((await server.realtime(`?websiteId=${DEMO.websiteId}`, bearer(token))).status).toBe(401);
  });

  // Authenticate first, then limit, then validate: nothing about websites leaks to a caller without a valid token.
  it.each([
    ['no header, no websiteId', '', undefined, 401],
    ['bad token, no websiteId', '', bearer('nope'), 401],
    ['bad token, unknown website', '?websiteId=no-such-shop', bearer('nope'), 401],
    ['bad token, existing website', `?websiteId=${FREE.websiteId}`, bearer('nope'), 401],
    ['valid token, no websiteId', '', bearer(DEMO.token), 400],
    ['valid token, unknown website', '?websiteId=no-such-shop', bearer(DEMO.token), 404],
    ['valid token, other website', `?websiteId=${FREE.websiteId}`, bearer(DEMO.token), 401],
  ])('checks in order: %s → %i', async (_case, query, headers, status) => {
    expect((await server.realtime(query, headers)).status).toBe(status);
  });
});

describe('GET /api/v1/realtime: bad input gets a clear error, never a crash', () => {
  it.each([
    ['an empty websiteId', '?websiteId=', 'websiteId is required'],
    ['a websiteId given twice', `?websiteId=${DEMO.websiteId}&websiteId=${DEMO.websiteId}`, 'websiteId must be given only once'],
    ['a websiteId of 257 characters', `?websiteId=${'x'.repeat(257)}`, 'websiteId must be at most 256 characters'],
    ['a differently cased parameter name', `?websiteid=${DEMO.websiteId}`, 'websiteId is required'],
  ])('answers 400 to %s', async (_case, query, message) => {
    const answer = await server.realtime(query, bearer(DEMO.token));
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: message });
  });

  it('answers 404, not 400, to a websiteId of exactly 256 characters', async () => {
    expect((await server.realtime(`?websiteId=${'x'.repeat(256)}`, bearer(DEMO.token))).status).toBe(404);
  });

  it('answers 404 to oddly encoded ids instead of failing', async () => {
    for (const query of ['?websiteId=%E0%A4%A', '?websiteId=%00', '?websiteId=demo-shop%20']) {
      expect((await server.realtime(query, bearer(DEMO.token))).status).toBe(404);
    }
  });

  it.each([
    ['the scheme alone', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['another scheme', `Basic ${Buffer.from('demo:demo-token').toString('base64')}`],
    ['a token without scheme', DEMO.token],
    ['extra words after the token', `Bearer ${DEMO.token} extra`],
    ['a token with a forbidden character', 'Bearer demo-token!'],
    ['a token of 257 characters', `Bearer ${'a'.repeat(257)}`],
    [
      'two Authorization headers',
      [
        ['Authorization', `Bearer ${DEMO.token}`],
        ['Authorization', `Bearer ${DEMO.token}`],
      ],
    ],
  ])('answers 401 to an Authorization header with %s', async (_case, header) => {
    const headers = typeof header === 'string' ? { Authorization: header } : (header as [string, string][]);
    const answer = await server.realtime(`?websiteId=${DEMO.websiteId}`, headers);
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ error: UNAUTHORIZED });
  });

  it.each([
    ['a lowercase scheme', `bearer ${DEMO.token}`],
    ['an uppercase scheme', `BEARER ${DEMO.token}`],
    ['two spaces before the token', `Bearer  ${DEMO.token}`],
  ])('accepts %s (the scheme is case-insensitive, RFC 9110)', async (_case, header) => {
    expect((await server.realtime(`?websiteId=${DEMO.websiteId}`, { Authorization: header })).status).toBe(200);
  });
});

describe('routing', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s on the realtime path with 405 and Allow', async (method) => {
    const answer = await server.request(`/api/v1/realtime?websiteId=${DEMO.websiteId}`, { method, headers: bearer(DEMO.token) });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(answer.json).toEqual({ error: `Method ${method} is not allowed on /api/v1/realtime. Allowed: GET, HEAD, OPTIONS` });
  });

  it('answers HEAD as GET without a body, counted like it', async () => {
    const answer = await server.request(`/api/v1/realtime?websiteId=${DEMO.websiteId}`, { method: 'HEAD', headers: bearer(DEMO.token) });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('9999');
  });

  it.each(['/', '/api/v1/realtime/', '/api/v2/realtime', '/api/v1/REALTIME', '/__emulator'])(
    'answers an unknown path (%s) with 404 JSON',
    async (path) => {
      const answer = await server.request(path, { headers: bearer(DEMO.token) });
      expect(answer.status).toBe(404);
      expect(answer.json).toEqual({ error: 'Not found' });
      expect(answer.headers.get('content-type')).toBe('application/json');
    },
  );
});
