// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { relayedWebsite } from '../src/config.js';
import { Redactor } from '../src/redaction.js';
import { createRelay } from '../src/relay.js';
import { type FetchFunction, fetchUpstreamReport, MAX_UPSTREAM_BODY_BYTES } from '../src/upstream.js';

const website = relayedWebsite('my-shop', 'up-SECRET-1');
const report = { currentVisitors: 4, websiteId: 'my-shop', timestamp: '2025-01-15T12:00:00.000Z' };

function ask(fetch: FetchFunction, timeoutMs = 1_000) {
  return fetchUpstreamReport({
    upstream: 'https://analytics.example/base',
    website,
    fetch,
    now: () => Date.UTC(2025, 0, 15, 12),
    timeoutMs,
    redactor: new Redactor([website.token]),
  });
}

describe('fetchUpstreamReport (one request to the service, stubbed)', () => {
  it('asks {upstream}/api/v1/realtime?websiteId=… with the Bearer token, following no redirect', async () => {
    let seen: { input: string; init: RequestInit } | undefined;
    const result = await ask(async (input, init) => {
      seen = { input, init };
      return Response.json(report);
    });
    expect(result).toEqual({ report });
    expect(seen!.input).toBe('https://analytics.example/base/api/v1/realtime?websiteId=my-shop');
    expect(new Headers(seen!.init.headers).get('authorization')).toBe('Bearer up-SECRET-1');
    expect(seen!.init.redirect).toBe('manual');
  });

  it.each<[string, () => Response, object]>([
    [
      'a 403',
      () => Response.json({ message: 'forbidden\u0000 here' }, { status: 403 }),
      { kind: 'unauthorized', status: 403, reason: "answered 403: check this website's token in the relay config", said: 'forbidden here' },
    ],
    [
      'a 400 in plain text',
      () => new Response('nope', { status: 400 }),
      { kind: 'bad-request', status: 400, reason: 'answered 400', said: 'nope' },
    ],
    [
      'a 400 in HTML',
      () => new Response('<h1>nope</h1>', { status: 400, headers: { 'Content-Type': 'text/html' } }),
      { kind: 'bad-request', status: 400, reason: 'answered 400', said: null },
    ],
    [
      'a 301',
      () => new Response(null, { status: 301, headers: { Location: 'https://elsewhere.example/' } }),
      { kind: 'invalid-response', status: 301, reason: 'answered 301: set upstream to the final URL, the relay does not follow redirects' },
    ],
    [
      'a 404',
      () => Response.json({ error: 'Website not found' }, { status: 404 }),
      { kind: 'not-found', status: 404, reason: "answered 404: check this website's id in the relay config", said: 'Website not found' },
    ],
    ['a 418', () => new Response(null, { status: 418 }), { kind: 'invalid-response', status: 418, reason: 'answered 418' }],
    [
      'a 429 with an HTTP date',
      () => new Response(null, { status: 429, headers: { 'Retry-After': 'Wed, 15 Jan 2025 12:02:00 GMT' } }),
      { kind: 'rate-limited', retryAfterMs: 120_000 },
    ],
    ['a 429 without Retry-After', () => new Response(null, { status: 429 }), { kind: 'rate-limited', retryAfterMs: null }],
    [
      'a long message',
      () => Response.json({ error: 'x'.repeat(500) }, { status: 500 }),
      { kind: 'server', reason: 'answered 500', said: `${'x'.repeat(200)}…` },
    ],
    [
      'a declared huge body',
      () => new Response('{}', { headers: { 'Content-Length': String(MAX_UPSTREAM_BODY_BYTES + 1) } }),
      { kind: 'invalid-response', reason: 'sent an answer larger than 16 KB' },
    ],
    [
      'a streamed huge body',
      () => new Response(`{"pad":"${'x'.repeat(MAX_UPSTREAM_BODY_BYTES)}"}`),
      { kind: 'invalid-response', reason: 'sent an answer larger than 16 KB' },
    ],
    ['an array', () => Response.json([report]), { kind: 'invalid-response', reason: 'sent an invalid report: not a JSON object' }],
    [
      'an impossible date',
      () => Response.json({ ...report, timestamp: '2025-02-30T12:00:00.000Z' }),
      { kind: 'invalid-response', reason: 'sent an invalid report: timestamp is not like 2026-01-31T12:00:00.000Z' },
    ],
  ])('turns %s into a failure', async (_name, answer, expected) => {
    expect(await ask(async () => answer())).toEqual({ failure: expect.objectContaining(expected) });
  });

  it('reports a network error by its code only, and a hang as a timeout', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error(`connect to ${website.token}`), { code: 'ECONNREFUSED' }),
    });
    expect(await ask(() => Promise.reject(refused))).toEqual({
      failure: { kind: 'network', status: null, retryAfterMs: null, reason: 'could not be reached (ECONNREFUSED)', said: null },
    });
    const hang: FetchFunction = (_input, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    expect(await ask(hang, 20)).toEqual({
      failure: { kind: 'timeout', status: null, retryAfterMs: null, reason: 'did not answer within 0.02 s', said: null },
    });
  });
});

describe('redaction of what the relay logs', () => {
  it('replaces every token, plain or URL-encoded, the longest first so one inside another goes whole', async () => {
    const logs: string[] = [];
    let calls = 0;
    const relay = createRelay({
      config: {
        upstream: 'https://analytics.example',
        websites: [relayedWebsite('a', 'abc'), relayedWebsite('b', 'abc+/=')],
        allowOrigins: [],
        interval: 60,
        maxStale: 600,
        hourlyBudget: 100,
      },
      now: () => {
        calls += 1;
        if (calls > 1) throw new Error('a abc+/= b abc%2B%2F%3D c abc d');
        return 0;
      },
      log: (line) => logs.push(line),
      fetch: () => Promise.reject(new Error('offline')),
    });
    expect((await relay(new Request('http://relay.test/api/v1/realtime?websiteId=a'))).status).toBe(500);
    expect(logs).toEqual(['[live-visitors-relay] unexpected error, answered 500: Error: a [token] b [token] c [token] d']);
  });
});
