// @vitest-environment node
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay } from '../src/relay.js';
import { defaultRelayConfig, type RelayHarness, SHOP, startRelayHarness, toAnswer } from './support/relay-harness.js';

let h: RelayHarness;
beforeAll(async () => {
  h = await startRelayHarness();
});
afterAll(() => h.close());

describe('the plain request browsers send and every request near it read the same', () => {
  // The relay reads `?websiteId=<plain id>` off the URL string and everything else in full: the two must agree.
  it.each([
    ['the plain form', `/api/v1/realtime?websiteId=${SHOP.id}`, 200],
    ['the id percent-encoded', '/api/v1/realtime?websiteId=shop%2Da', 200],
    ['another parameter after it', `/api/v1/realtime?websiteId=${SHOP.id}&v=2`, 200],
    ['another parameter before it', `/api/v1/realtime?v=2&websiteId=${SHOP.id}`, 200],
    ['a dot segment in the path', `/api/v1/x/../realtime?websiteId=${SHOP.id}`, 200],
    ['the path in another case', `/API/v1/realtime?websiteId=${SHOP.id}`, 404],
    ['a plain unknown id', '/api/v1/realtime?websiteId=shop-z', 404],
    ['a plain id of 256 characters', `/api/v1/realtime?websiteId=${'y'.repeat(256)}`, 404],
    ['a plain id of 257 characters', `/api/v1/realtime?websiteId=${'y'.repeat(257)}`, 400],
  ])('%s → %i', async (_name, path, status) => {
    const answer = await h.request(path);
    expect(answer.status).toBe(status);
    if (status === 200) expect(answer.json).toMatchObject({ websiteId: SHOP.id });
  });

  it('a POST in the plain form is refused like any other', async () => {
    const answer = await h.request(`/api/v1/realtime?websiteId=${SHOP.id}`, { method: 'POST' });
    expect([answer.status, answer.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS']);
  });
});

describe('bad HTTP input gets a clear JSON error, and nothing goes upstream', () => {
  it.each([
    ['no websiteId', '/api/v1/realtime', 400, 'websiteId is required'],
    ['an empty websiteId', '/api/v1/realtime?websiteId=', 400, 'websiteId is required'],
    ['websiteId twice', `/api/v1/realtime?websiteId=${SHOP.id}&websiteId=${SHOP.id}`, 400, 'websiteId must be given only once'],
    ['a 257-character websiteId', `/api/v1/realtime?websiteId=${'x'.repeat(257)}`, 400, 'websiteId must be at most 256 characters'],
    ['a 256-character unknown websiteId', `/api/v1/realtime?websiteId=${'x'.repeat(256)}`, 404, 'Website not found'],
    ['a websiteId with a NUL', '/api/v1/realtime?websiteId=shop-a%00', 404, 'Website not found'],
    ['the wrong case', '/api/v1/realtime?websiteid=shop-a', 400, 'websiteId is required'],
    ['a trailing slash', `/api/v1/realtime/?websiteId=${SHOP.id}`, 404, 'Not found: the relay answers GET /api/v1/realtime?websiteId=…'],
    ['the root', '/', 404, 'Not found: the relay answers GET /api/v1/realtime?websiteId=…'],
    ['another API path', '/api/v1/pageviews', 404, 'Not found: the relay answers GET /api/v1/realtime?websiteId=…'],
  ])('%s → %i', async (_name, path, status, error) => {
    const before = h.upstreamCalls.length;
    const answer = await h.request(path);
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.json).toEqual({ error });
    expect(h.upstreamCalls.length).toBe(before);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('%s → 405 with Allow', async (method) => {
    const answer = await h.get(`?websiteId=${SHOP.id}`, { method, body: method === 'DELETE' ? null : '{"websiteId":"shop-a"}' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(answer.json).toEqual({ error: `Method ${method} is not allowed on /api/v1/realtime. Allowed: GET, HEAD, OPTIONS` });
  });

  it('ignores unknown query parameters such as cache busters', async () => {
    const answer = await h.get(`?websiteId=${SHOP.id}&_=123&token=abc`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ websiteId: SHOP.id });
  });

  it('survives a malformed request on the wire and keeps serving', async () => {
    const url = new URL(h.relayUrl);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.end('GARBAGE /api/v1/realtime HTTP/9.9\r\nHost: \0\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect((await h.get(`?websiteId=${SHOP.id}`)).status).toBe(200);
  });
});

describe('the handler never throws', () => {
  it('answers 500 without a stack when something unexpected breaks, even with a throwing logger', async () => {
    const relay = createRelay({
      config: defaultRelayConfig('https://analytics.example'),
      now: () => {
        throw new Error('clock broke');
      },
      log: () => {
        throw new Error('logger broke too');
      },
    });
    const answer = await toAnswer(await relay(new Request(`http://relay.test/api/v1/realtime?websiteId=${SHOP.id}`)));
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ error: 'The relay failed unexpectedly; try again later' });
  });

  it('logs the unexpected error, free of tokens', async () => {
    const logs: string[] = [];
    let calls = 0;
    const relay = createRelay({
      config: defaultRelayConfig('https://analytics.example'),
      now: () => {
        calls += 1;
        if (calls > 1) throw new TypeError(`bad state near ${SHOP.token}`);
        return 0;
      },
      log: (line) => logs.push(line),
      fetch: () => Promise.reject(new Error('offline')),
    });
    const answer = await relay(new Request(`http://relay.test/api/v1/realtime?websiteId=${SHOP.id}`));
    expect(answer.status).toBe(500);
    expect(logs).toEqual(['[live-visitors-relay] unexpected error, answered 500: TypeError: bad state near [token]']);
  });

  it('refuses an invalid config when created, with every problem listed', () => {
    expect(() => createRelay({ config: { ...defaultRelayConfig('ftp://x'), interval: 0 } })).toThrow(
      /Invalid relay config \(createRelay options\):\n {2}- upstream must use https \(or http\).*\n {2}- interval must be a whole number of seconds from 1 to 3600 \(got 0\)/,
    );
  });
});
