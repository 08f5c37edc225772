import { afterEach, describe, expect, it, vi } from 'vitest';
import { isConfigurationError } from '../src/contract/errors.js';
import { realtimeUrl } from '../src/contract/request.js';
import { fetchRealtimeReport, REQUEST_TIMEOUT_MS } from '../src/realtime/client.js';
import { browserEnvironment, type Environment, setEnvironment } from '../src/realtime/environment.js';
import { RealtimeError, type RealtimeErrorKind } from '../src/realtime/errors.js';
import type { NoAnswer } from './support/fake-service.js';

const API_BASE = 'https://analytics.example';
const ENDPOINT = '/api/v1/realtime';
/** Distinctive, so a leak into a URL or a message cannot hide. */
const TOKEN = 'tok_SECRET_7f3a9c21e5';
const SPEC_401 = 'Missing or invalid authorization header. Expected: Bearer <token>';
const TIMESTAMP = '2026-03-01T12:34:56.789Z';

let sequence = 0;
/** A fresh website id per test, so no test can pass on another test's answer. */
function freshWebsiteId(): string {
  return `site-${++sequence}`;
}

// ---------------------------------------------------------------------------------------------
// Fetch stub with a route table: routes are keyed by path; anything else is a 404, so a wrong
// URL fails loudly instead of silently getting a report.

interface Recorded {
  url: URL;
  rawUrl: string;
  init: RequestInit;
  headers: Headers;
}

type Reply =
  | {
      status?: number;
      headers?: Record<string, string>;
      /** Serialised with JSON.stringify. */
      json?: unknown;
      /** Sent verbatim (for broken JSON, HTML pages, numbers JSON cannot express). */
      raw?: string;
      /** The headers arrive, the body never ends (until the request is aborted). */
      body?: 'hang';
    }
  | NoAnswer;

type Route = Reply | ((request: Recorded) => Reply);

function abortReason(signal: AbortSignal | null | undefined): unknown {
  return signal?.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** A body that, like a real fetch's, errors when the request's signal aborts. */
function hangingBody(signal: AbortSignal | null | undefined): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"currentVisitors": 1'));
      signal?.addEventListener('abort', () => controller.error(abortReason(signal)));
    },
  });
}

function fetchStub(routes: Record<string, Route>) {
  const requests: Recorded[] = [];
  const fetch = vi.fn(async (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input);
    const request: Recorded = { url, rawUrl: input, init, headers: new Headers(init.headers) };
    requests.push(request);
    if (init.signal?.aborted) throw abortReason(init.signal);

    const route = routes[url.pathname];
    const reply: Reply = route === undefined ? { status: 404, raw: 'no such route' } : typeof route === 'function' ? route(request) : route;
    if (reply === 'network-error') throw new TypeError('Failed to fetch');
    if (reply === 'hang') {
      return new Promise<Response>((_, reject) => {
        init.signal?.addEventListener('abort', () => reject(abortReason(init.signal)));
      });
    }
    const body =
      reply.body === 'hang' ? hangingBody(init.signal) : (reply.raw ?? (reply.json === undefined ? null : JSON.stringify(reply.json)));
    return new Response(body, {
      status: reply.status ?? 200,
      headers: { 'content-type': 'application/json', ...reply.headers },
    });
  });
  const env: Environment = { ...browserEnvironment, fetch };
  return { fetch, requests, env };
}

/** A valid report for whatever website was asked for. */
const echoReport: Route = ({ url }) => ({
  json: { currentVisitors: 23, websiteId: url.searchParams.get('websiteId'), timestamp: TIMESTAMP },
});

/** A 200 whose JSON is the requested website's report with some fields replaced (or removed as `undefined`). */
function reportWith(fields: Record<string, unknown>): Route {
  return ({ url }) => ({
    json: { currentVisitors: 23, websiteId: url.searchParams.get('websiteId'), timestamp: TIMESTAMP, ...fields },
  });
}

/** Awaits a rejection that must be a RealtimeError. */
async function failure(promise: Promise<unknown>): Promise<RealtimeError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RealtimeError);
    return error as RealtimeError;
  }
  throw new Error('expected the request to fail, but it resolved');
}

/** Watches a promise without awaiting it, so fake time can pass while it is pending. */
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

afterEach(() => {
  vi.useRealTimers();
});

// ---------------------------------------------------------------------------------------------

describe('the request', () => {
  it('goes to {apiBase}/api/v1/realtime with the websiteId as the only query parameter', async () => {
    const websiteId = freshWebsiteId();
    const { requests, env } = fetchStub({ [ENDPOINT]: echoReport });
    await fetchRealtimeReport({ apiBase: API_BASE, websiteId, token: TOKEN, env });
    expect(requests).toHaveLength(1);
    const { url } = requests[0]!;
    expect(url.origin + url.pathname).toBe(`${API_BASE}${ENDPOINT}`);
    expect([...url.searchParams]).toEqual([['websiteId', websiteId]]);
  });

  it('keeps a path prefix of api-base (a relay under /stats)', async () => {
    const { requests, env } = fetchStub({ [`/stats${ENDPOINT}`]: echoReport });
    await fetchRealtimeReport({ apiBase: 'https://shop.example/stats', websiteId: freshWebsiteId(), env });
    expect(requests[0]!.url.pathname).toBe(`/stats${ENDPOINT}`);
  });

  it.each([
    ['spaces and ampersands', 'a b&c'],
    ['a fragment and a second query', 'x#y?websiteId=evil'],
    ['an HTML payload', '<img src=x onerror=alert(1)>'],
    ['non-ASCII', 'boutique-é-ü'],
  ])('URL-encodes a websiteId with %s', async (_, websiteId) => {
    const { requests, env } = fetchStub({ [ENDPOINT]: echoReport });
    await fetchRealtimeReport({ apiBase: API_BASE, websiteId, env });
    const { url, rawUrl } = requests[0]!;
    expect(url.searchParams.getAll('websiteId')).toEqual([websiteId]);
    expect(url.hash).toBe('');
    expect(rawUrl.slice(rawUrl.indexOf('?'))).not.toMatch(/[ &#<>]|websiteId=.*websiteId=/);
  });

  it('realtimeUrl builds the same URL as the request uses', () => {
    expect(new URL(realtimeUrl(API_BASE, 'a b&c')).searchParams.get('websiteId')).toBe('a b&c');
    expect(realtimeUrl(API_BASE, 'a b&c').startsWith(`${API_BASE}${ENDPOINT}?`)).toBe(true);
  });

  it('sends the token only as "Authorization: Bearer <token>", never in the URL', async () => {
    const { requests, env } = fetchStub({ [ENDPOINT]: echoReport });
    await fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), token: TOKEN, env });
    const { headers, rawUrl } = requests[0]!;
    expect(headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(rawUrl).not.toContain(TOKEN);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
  ])('sends no Authorization header when the token is %s (same-origin relay)', async (_, token) => {
    const { requests, env } = fetchStub({ [ENDPOINT]: echoReport });
    await fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), token, env });
    expect(requests[0]!.headers.has('authorization')).toBe(false);
  });

  it('is a GET without a body and without cookies (credentials: omit)', async () => {
    const { requests, env } = fetchStub({ [ENDPOINT]: echoReport });
    await fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), token: TOKEN, env });
    const { init } = requests[0]!;
    expect(init.credentials).toBe('omit');
    expect(init.method ?? 'GET').toBe('GET');
    expect(init.body ?? null).toBeNull();
  });

  it('returns the validated report', async () => {
    const websiteId = freshWebsiteId();
    const { env } = fetchStub({ [ENDPOINT]: echoReport });
    await expect(fetchRealtimeReport({ apiBase: API_BASE, websiteId, env })).resolves.toStrictEqual({
      currentVisitors: 23,
      websiteId,
      timestamp: TIMESTAMP,
    });
  });

  it('returns only the spec fields, dropping anything else the server sent', async () => {
    const raw = (id: string) =>
      `{"currentVisitors": 23, "websiteId": ${JSON.stringify(id)}, "timestamp": "${TIMESTAMP}", "extra": "<b>x</b>", "__proto__": {"polluted": true}}`;
    const { env } = fetchStub({ [ENDPOINT]: ({ url }) => ({ raw: raw(url.searchParams.get('websiteId')!) }) });
    const report = await fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env });
    expect(Object.keys(report).sort()).toEqual(['currentVisitors', 'timestamp', 'websiteId']);
    expect((report as unknown as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('the environment seam', () => {
  it('uses the environment installed by setEnvironment when none is passed', async () => {
    const { fetch, requests } = fetchStub({ [ENDPOINT]: echoReport });
    const restore = setEnvironment({ fetch });
    try {
      await fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId() });
    } finally {
      restore();
    }
    expect(requests).toHaveLength(1);
  });

  it('browserEnvironment looks up the global fetch at call time, so a later stub is honoured', async () => {
    const { fetch, requests } = fetchStub({ [ENDPOINT]: echoReport });
    vi.stubGlobal('fetch', fetch);
    await fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env: browserEnvironment });
    expect(requests).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('errors by status', () => {
  it.each<{ status: number; reply: Reply; kind: RealtimeErrorKind; says: string[] }>([
    { status: 401, reply: { status: 401, json: { error: SPEC_401 } }, kind: 'unauthorized', says: [SPEC_401, 'token'] },
    { status: 403, reply: { status: 403, json: { error: 'Forbidden' } }, kind: 'unauthorized', says: ['Forbidden', 'token'] },
    {
      status: 400,
      reply: { status: 400, json: { error: 'websiteId is required' } },
      kind: 'bad-request',
      says: ['websiteId is required', 'website-id'],
    },
    {
      status: 404,
      reply: { status: 404, json: { error: 'Website not found' } },
      kind: 'not-found',
      says: ['Website not found', 'website-id'],
    },
    {
      status: 429,
      reply: { status: 429, json: { error: 'Too many requests' } },
      kind: 'rate-limited',
      says: ['Too many requests', 'interval'],
    },
    { status: 500, reply: { status: 500, json: { error: 'Internal error' } }, kind: 'server', says: ['Internal error'] },
    { status: 502, reply: { status: 502 }, kind: 'server', says: ['502'] },
    { status: 503, reply: { status: 503, json: { message: 'Down for maintenance' } }, kind: 'server', says: ['Down for maintenance'] },
    { status: 302, reply: { status: 302 }, kind: 'invalid-response', says: ['302', 'api-base'] },
    {
      status: 418,
      reply: { status: 418, raw: "I'm a teapot", headers: { 'content-type': 'text/plain' } },
      kind: 'invalid-response',
      says: ["I'm a teapot", 'api-base'],
    },
  ])('$status → $kind, naming the cause and the fix', async ({ status, reply, kind, says }) => {
    const { env } = fetchStub({ [ENDPOINT]: reply });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), token: TOKEN, env }));
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.name).toBe('RealtimeError');
    for (const fragment of says) expect(error.message).toContain(fragment);
  });

  it('quotes a plain-text error body', async () => {
    const { env } = fetchStub({
      [ENDPOINT]: { status: 404, raw: 'Website not found', headers: { 'content-type': 'text/plain; charset=utf-8' } },
    });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error.message).toContain('Website not found');
  });

  it('names the website that was not found', async () => {
    const websiteId = freshWebsiteId();
    const { env } = fetchStub({ [ENDPOINT]: { status: 404, json: { error: 'Website not found' } } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId, env }));
    expect(error.message).toContain(websiteId);
  });

  it('does not quote an HTML error page into the message', async () => {
    const page =
      '<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1><script>x()</script></body></html>';
    const { env } = fetchStub({ [ENDPOINT]: { status: 503, raw: page, headers: { 'content-type': 'text/html; charset=utf-8' } } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error.kind).toBe('server');
    expect(error.message).toContain('503');
    expect(error.message).not.toMatch(/<|Service Unavailable|DOCTYPE/);
  });

  it.each([
    ['broken JSON', '{"error": "Website not', 'Website not'],
    ['a non-string error', '{"error": {"code": "E_NOT_FOUND"}}', 'E_NOT_FOUND'],
    ['a blank error', '{"error": "  \\n "}', '""'],
  ])('keeps the kind and quotes nothing for %s', async (_, raw, absent) => {
    const { env } = fetchStub({ [ENDPOINT]: { status: 404, raw } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error).toMatchObject({ kind: 'not-found', status: 404 });
    expect(error.message).not.toContain(absent);
    expect(error.message).not.toContain('" "');
  });

  it('turns control characters in the server message into single spaces', async () => {
    const { env } = fetchStub({ [ENDPOINT]: { status: 404, json: { error: '\u0007Website\r\n\u001b[31mnot\u0000found\u007f\n' } } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not get through.
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(error.message).toContain('Website [31mnot found');
  });

  // C1 controls (U+0080–U+009F, e.g. the one-byte CSI escape) are control characters too.
  it('removes C1 control characters from the server message too', async () => {
    const { env } = fetchStub({ [ENDPOINT]: { status: 404, json: { error: 'Website\u009b31m not\u0085found' } } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error.message).not.toMatch(/[\u0080-\u009f]/);
  });

  it('truncates an overlong server message to 200 characters', async () => {
    const { env } = fetchStub({ [ENDPOINT]: { status: 500, json: { error: 'x'.repeat(5000) } } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error.message).toContain(`${'x'.repeat(200)}…`);
    expect(error.message).not.toContain('x'.repeat(201));
    expect(error.message.length).toBeLessThan(400);
  });
});

describe('429 and Retry-After', () => {
  it('reads Retry-After in seconds', async () => {
    const { env } = fetchStub({ [ENDPOINT]: { status: 429, headers: { 'retry-after': '120' } } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error).toMatchObject({ kind: 'rate-limited', status: 429, retryAfterMs: 120_000 });
  });

  it('reads Retry-After on a 503 too, which stays a server error (the back-off honours it only for 429s)', async () => {
    const { env } = fetchStub({ [ENDPOINT]: { status: 503, headers: { 'retry-after': '30' } } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error).toMatchObject({ kind: 'server', status: 503, retryAfterMs: 30_000 });
  });

  // The relay sends delay-seconds; the service's contract has no Retry-After. An HTTP date (which
  // the relay reads, facing any upstream) is not worth its bytes in every shopper's download.
  it('takes an HTTP-date Retry-After as none: the default wait applies', async () => {
    const { env } = fetchStub({
      [ENDPOINT]: { status: 429, headers: { date: 'Wed, 21 Oct 2015 07:28:00 GMT', 'retry-after': 'Wed, 21 Oct 2015 07:30:00 GMT' } },
    });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error).toMatchObject({ kind: 'rate-limited', retryAfterMs: null });
  });

  it.each([
    ['missing', undefined],
    ['not a number or date', 'soon'],
  ])('has retryAfterMs null when Retry-After is %s', async (_, value) => {
    const headers: Record<string, string> = value === undefined ? {} : { 'retry-after': value };
    const { env } = fetchStub({ [ENDPOINT]: { status: 429, headers } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error).toMatchObject({ kind: 'rate-limited', retryAfterMs: null });
  });

  it.each(['-5', '1.5', ' ', '1e3'])('treats the malformed Retry-After %j as missing', async (value) => {
    const { env } = fetchStub({ [ENDPOINT]: { status: 429, headers: { 'retry-after': value } } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error.retryAfterMs).toBeNull();
  });
});

// The message names both ways an Age is refused, so it is true of each (it once called junk "over a day old").
describe('an Age no count can be shown with', () => {
  it.each([String(2 * 24 * 3600), 'junk', '+90000', '1e3'])('Age %j fails as a server error whose message says why', async (age) => {
    const { env } = fetchStub({
      [ENDPOINT]: ({ url }) => ({
        json: { currentVisitors: 23, websiteId: url.searchParams.get('websiteId'), timestamp: TIMESTAMP },
        headers: { age },
      }),
    });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error).toMatchObject({ kind: 'server', status: 200 });
    expect(error.message).toContain('sends an Age over a day or not in whole seconds');
    expect(error.message).not.toContain('serves a count over a day old');
  });
});

describe('transport failures', () => {
  it('a thrown TypeError (offline, DNS, CORS) is a network error naming api-base', async () => {
    const { env } = fetchStub({ [ENDPOINT]: 'network-error' });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error).toMatchObject({ kind: 'network', status: null, retryAfterMs: null });
    expect(error.message).toContain(`${API_BASE}${ENDPOINT}`);
    expect(error.message).toContain('api-base');
  });

  it('times out after 10 s when fetch hangs, and aborts the request', async () => {
    vi.useFakeTimers();
    const { requests, env } = fetchStub({ [ENDPOINT]: 'hang' });
    const outcome = track(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
    expect(outcome.settled).toBe(false);
    expect(requests[0]!.init.signal?.aborted).toBe(false);

    await vi.advanceTimersByTimeAsync(1);
    expect(REQUEST_TIMEOUT_MS).toBe(10_000);
    expect(outcome.error).toBeInstanceOf(RealtimeError);
    expect(outcome.error).toMatchObject({ kind: 'timeout', status: null });
    expect((outcome.error as RealtimeError).message).toContain('10 s');
    expect(requests[0]!.init.signal?.aborted).toBe(true);
  });

  it('times out when the headers arrive but the body never ends', async () => {
    vi.useFakeTimers();
    const { env } = fetchStub({ [ENDPOINT]: { body: 'hang' } });
    const outcome = track(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
    expect(outcome.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.error).toMatchObject({ kind: 'timeout' });
  });

  it('leaves no timer behind after an answer', async () => {
    vi.useFakeTimers();
    const { env } = fetchStub({ [ENDPOINT]: echoReport });
    await fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("passes the caller's abort through untouched (not a RealtimeError)", async () => {
    const { requests, env } = fetchStub({ [ENDPOINT]: 'hang' });
    const caller = new AbortController();
    const promise = fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env, signal: caller.signal });
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    const reason = new DOMException('The element was removed', 'AbortError');
    caller.abort(reason);
    await expect(promise).rejects.toBe(reason);
    expect(requests[0]!.init.signal?.aborted).toBe(true);
  });

  it('passes through an abort that happened before the call', async () => {
    const { env } = fetchStub({ [ENDPOINT]: echoReport });
    const caller = new AbortController();
    const reason = new DOMException('gone', 'AbortError');
    caller.abort(reason);
    await expect(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env, signal: caller.signal })).rejects.toBe(reason);
  });

  it('passes through an abort while the body is being read', async () => {
    const { requests, env } = fetchStub({ [ENDPOINT]: { body: 'hang' } });
    const caller = new AbortController();
    const promise = fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env, signal: caller.signal });
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    const reason = new DOMException('gone', 'AbortError');
    caller.abort(reason);
    await expect(promise).rejects.toBe(reason);
  });

  it('stops listening to the caller signal once the request is over', async () => {
    const { env } = fetchStub({ [ENDPOINT]: echoReport });
    const caller = new AbortController();
    const add = vi.spyOn(caller.signal, 'addEventListener');
    const remove = vi.spyOn(caller.signal, 'removeEventListener');
    await fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env, signal: caller.signal });
    expect(add).toHaveBeenCalledWith('abort', expect.any(Function));
    expect(remove).toHaveBeenCalledWith('abort', add.mock.calls[0]![1]);
  });
});

describe('the token never appears in a message', () => {
  it.each<[string, Route]>([
    ['401', { status: 401, json: { error: SPEC_401 } }],
    ['403', { status: 403 }],
    ['400', { status: 400, json: { error: 'websiteId is required' } }],
    ['404', { status: 404, json: { error: 'Website not found' } }],
    ['429', { status: 429, headers: { 'retry-after': '60' } }],
    ['500', { status: 500, json: { error: 'boom' } }],
    ['503 HTML', { status: 503, raw: '<html>down</html>', headers: { 'content-type': 'text/html' } }],
    ['302', { status: 302 }],
    ['invalid JSON', { raw: 'not json' }],
    ['invalid field', reportWith({ currentVisitors: -1 })],
    ['network', 'network-error'],
    ['timeout', 'hang'],
    ['body timeout', { body: 'hang' }],
  ])('%s', async (_, route) => {
    vi.useFakeTimers();
    const { env } = fetchStub({ [ENDPOINT]: route });
    const outcome = track(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), token: TOKEN, env }));
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS);
    expect(outcome.error).toBeInstanceOf(RealtimeError);
    expect((outcome.error as RealtimeError).message).not.toContain(TOKEN);
  });

  // A service or proxy that echoes the rejected token must not get it into the console or an event.
  it('even when the server echoes it back', async () => {
    const { env } = fetchStub({ [ENDPOINT]: { status: 401, json: { error: `Invalid token ${TOKEN}` } } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), token: TOKEN, env }));
    expect(error.message).not.toContain(TOKEN);
  });

  // The message is shortened to 200 characters: redacting after the cut would miss a token it split.
  it.each([190, 196, 199])('even when the echo puts it across the 200-character cut (at %i)', async (at) => {
    const echo = `${'x'.repeat(at)}${TOKEN} was rejected`;
    const { env } = fetchStub({ [ENDPOINT]: { status: 401, json: { error: echo } } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), token: TOKEN, env }));
    expect(error.message).not.toContain(TOKEN.slice(0, 4));
  });
});

// ---------------------------------------------------------------------------------------------

describe('response validation', () => {
  const MISSING = undefined;

  it.each<[string, unknown]>([
    ['0', 0],
    ['23', 23],
    ['Number.MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER],
  ])('accepts currentVisitors %s', async (_, currentVisitors) => {
    const { env } = fetchStub({ [ENDPOINT]: reportWith({ currentVisitors }) });
    const report = await fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env });
    expect(report.currentVisitors).toBe(currentVisitors);
  });

  it.each<[string, string]>([
    ['negative', '-1'],
    ['fractional', '1.5'],
    ['a numeric string', '"12"'],
    ['null', 'null'],
    ['the string "NaN"', '"NaN"'],
    ['2**53 (not safe)', '9007199254740992'],
    ['1e309 (parses to Infinity)', '1e309'],
    ['a boolean', 'true'],
    ['an array', '[5]'],
    ['an HTML payload', '"<img src=x onerror=alert(1)>"'],
  ])('rejects currentVisitors %s', async (_, rawValue) => {
    const websiteId = freshWebsiteId();
    const raw = `{"currentVisitors": ${rawValue}, "websiteId": ${JSON.stringify(websiteId)}, "timestamp": "${TIMESTAMP}"}`;
    const { env } = fetchStub({ [ENDPOINT]: { raw } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId, env }));
    expect(error).toMatchObject({ kind: 'invalid-response', status: 200 });
    expect(error.message).toContain('currentVisitors');
    expect(error.message).not.toContain('<img');
  });

  it('rejects a missing currentVisitors', async () => {
    const { env } = fetchStub({ [ENDPOINT]: reportWith({ currentVisitors: MISSING }) });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error.kind).toBe('invalid-response');
    expect(error.message).toContain('currentVisitors');
  });

  it.each<[string, (requested: string) => unknown]>([
    ['another website', (id) => `${id}-other`],
    ['missing', () => MISSING],
    ['different case', (id) => id.toUpperCase()],
    ['null', () => null],
    ['padded', (id) => ` ${id}`],
  ])('rejects websiteId: %s', async (_, answer) => {
    const websiteId = freshWebsiteId();
    const { env } = fetchStub({ [ENDPOINT]: reportWith({ websiteId: answer(websiteId) }) });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId, env }));
    expect(error).toMatchObject({ kind: 'invalid-response', status: 200 });
    expect(error.message).toContain('websiteId');
  });

  it('rejects a numeric websiteId that only looks equal', async () => {
    const { env } = fetchStub({ [ENDPOINT]: reportWith({ websiteId: 42 }) });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: '42', env }));
    expect(error.message).toContain('websiteId');
  });

  it.each(['2026-03-01T12:34:56.789Z', '2024-02-29T23:59:59.999Z', '1970-01-01T00:00:00.000Z'])(
    'accepts the timestamp %s',
    async (timestamp) => {
      const { env } = fetchStub({ [ENDPOINT]: reportWith({ timestamp }) });
      const report = await fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env });
      expect(report.timestamp).toBe(timestamp);
    },
  );

  it.each<[string, unknown]>([
    ['without milliseconds', '2026-03-01T12:34:56Z'],
    ['with an offset', '2026-03-01T12:34:56.789+01:00'],
    ['without Z', '2026-03-01T12:34:56.789'],
    ['with microseconds', '2026-03-01T12:34:56.789123Z'],
    ['with a space for T', '2026-03-01 12:34:56.789Z'],
    ['a date that does not exist', '2026-02-30T00:00:00.000Z'],
    ['24:00', '2026-03-01T24:00:00.000Z'],
    ['a number', 1772368496789],
    ['empty', ''],
    ['missing', MISSING],
    ['lower-case z', '2026-03-01T12:34:56.789z'],
  ])('rejects a timestamp %s', async (_, timestamp) => {
    const { env } = fetchStub({ [ENDPOINT]: reportWith({ timestamp }) });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error).toMatchObject({ kind: 'invalid-response', status: 200 });
    expect(error.message).toContain('timestamp');
  });

  it.each<[string, string, string]>([
    ['not JSON', 'Hello <b>world</b>', 'not JSON'],
    ['empty', '', 'not JSON'],
    ['an array', `[{"currentVisitors": 1, "timestamp": "${TIMESTAMP}"}]`, 'not a JSON object'],
    ['null', 'null', 'not a JSON object'],
    ['a string', '"23"', 'not a JSON object'],
    ['a number', '23', 'not a JSON object'],
  ])('rejects a body that is %s', async (_, raw, reason) => {
    const { env } = fetchStub({ [ENDPOINT]: { raw } });
    const error = await failure(fetchRealtimeReport({ apiBase: API_BASE, websiteId: freshWebsiteId(), env }));
    expect(error).toMatchObject({ kind: 'invalid-response', status: 200 });
    expect(error.message).toContain(reason);
    expect(error.message).toContain('api-base');
    expect(error.message).not.toContain('<b>');
  });

  it('returns an HTML payload in a requested and echoed websiteId as a plain string', async () => {
    const websiteId = '<img src=x onerror=alert(1)>';
    const { env } = fetchStub({ [ENDPOINT]: echoReport });
    const report = await fetchRealtimeReport({ apiBase: API_BASE, websiteId, env });
    expect(typeof report.websiteId).toBe('string');
    expect(report.websiteId).toBe(websiteId);
  });
});

describe('RealtimeError and isConfigurationError', () => {
  it('is an Error with null status and retryAfterMs by default', () => {
    const error = new RealtimeError({ kind: 'network', message: 'offline' });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'RealtimeError', kind: 'network', message: 'offline', status: null, retryAfterMs: null });
  });

  it.each<[RealtimeErrorKind, boolean]>([
    ['unauthorized', true],
    ['not-found', true],
    ['bad-request', true],
    ['rate-limited', false],
    ['server', false],
    ['network', false],
    ['timeout', false],
    ['invalid-response', false],
  ])('isConfigurationError(%s) is %s', (kind, expected) => {
    expect(isConfigurationError(kind)).toBe(expected);
  });
});
