// @vitest-environment node
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../src/emulator.js';
import { FakeTime } from './support/fake-time.js';
import { bearer, DEMO, eventually, startTestServer, type TestServer, toAnswer } from './support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.emulator.reset();
  server.emulator.recordPageview(DEMO.websiteId, 'visitor-a');
  server.emulator.recordPageview(DEMO.websiteId, 'visitor-b');
});

const report = () => server.realtime(`?websiteId=${DEMO.websiteId}`, bearer(DEMO.token));
const setFault = async (fault: Record<string, unknown>) => {
  const answer = await server.control('POST', '/fault', fault);
  expect(answer.status).toBe(200);
  return answer;
};
const nowIso = () => new Date(server.time.now()).toISOString();

describe('faults that change the answer of GET /api/v1/realtime', () => {
  it.each([
    [{ kind: 'server-error' }, 500, 'application/json', { error: 'Internal server error' }],
    [{ kind: 'rate-limited-no-retry-after' }, 429, 'application/json', { error: 'Rate limit exceeded.' }],
    [{ kind: 'unauthorized' }, 401, 'application/json', { error: 'Missing or invalid authorization header. Expected: Bearer <token>' }],
    [{ kind: 'not-found' }, 404, 'application/json', { error: 'Website not found' }],
    [{ kind: 'bad-request' }, 400, 'application/json', { error: 'websiteId is required' }],
  ])('%o answers %i with a JSON error', async (fault, status, contentType, body) => {
    await setFault(fault);
    const answer = await report();
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toBe(contentType);
    expect(answer.json).toEqual(body);
    expect(answer.headers.get('retry-after')).toBeNull();
  });

  it.each([
    [{ kind: 'bad-gateway' }, 502, '502 Bad Gateway'],
    [{ kind: 'unavailable' }, 503, '503 Service Unavailable'],
    [{ kind: 'html' }, 200, 'This is a web page, not the API.'],
  ])('%o answers %i with an HTML page', async (fault, status, text) => {
    await setFault(fault);
    const answer = await report();
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.text).toMatch(/^<!doctype html>/);
    expect(answer.text).toContain(text);
    expect(answer.json).toBeUndefined();
  });

  it('rate-limited answers 429 with Retry-After, 60 by default or as asked', async () => {
    await setFault({ kind: 'rate-limited' });
    const byDefault = await report();
    expect(byDefault.status).toBe(429);
    expect(byDefault.headers.get('retry-after')).toBe('60');
    await setFault({ kind: 'rate-limited', retryAfterSeconds: 5 });
    const asked = await report();
    expect(asked.headers.get('retry-after')).toBe('5');
    expect(asked.json).toEqual({ error: 'Rate limit exceeded. Retry in 5 seconds.' });
  });

  it('invalid-json answers 200 with JSON cut short', async () => {
    await setFault({ kind: 'invalid-json' });
    const answer = await report();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.text).toBe('{"currentVisitors":2,"we');
    expect(answer.json).toBeUndefined();
  });

  it.each([
    [undefined, -3],
    ['12', '12'],
    [1.5, 1.5],
    [null, null],
    [-1, -1],
  ])('invalid-count with value %o sends currentVisitors %o beside valid fields', async (value, sent) => {
    await setFault(value === undefined ? { kind: 'invalid-count' } : { kind: 'invalid-count', value });
    const answer = await report();
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ currentVisitors: sent, websiteId: DEMO.websiteId, timestamp: nowIso() });
  });

  it('invalid-timestamp sends a timestamp that is not one', async () => {
    await setFault({ kind: 'invalid-timestamp' });
    expect((await report()).json).toEqual({ currentVisitors: 2, websiteId: DEMO.websiteId, timestamp: 'not-a-date' });
    await setFault({ kind: 'invalid-timestamp', value: 1_700_000_000_000 });
    expect((await report()).json).toMatchObject({ timestamp: 1_700_000_000_000 });
  });

  it('wrong-website echoes another websiteId', async () => {
    await setFault({ kind: 'wrong-website' });
    expect((await report()).json).toEqual({ currentVisitors: 2, websiteId: 'another-website', timestamp: nowIso() });
    await setFault({ kind: 'wrong-website', value: 'small-shop' });
    expect((await report()).json).toMatchObject({ websiteId: 'small-shop' });
  });

  it.each([
    [undefined, { websiteId: DEMO.websiteId, timestamp: 'NOW' }],
    ['websiteId', { currentVisitors: 2, timestamp: 'NOW' }],
    ['timestamp', { currentVisitors: 2, websiteId: DEMO.websiteId }],
  ])('missing-field with field %o leaves that field out', async (field, expected) => {
    await setFault(field === undefined ? { kind: 'missing-field' } : { kind: 'missing-field', field });
    const body = JSON.parse(JSON.stringify(expected).replace('"NOW"', JSON.stringify(nowIso())));
    expect((await report()).json).toEqual(body);
  });

  it('reset sends the status and half the body, then cuts the connection', async () => {
    await setFault({ kind: 'reset' });
    const response = await fetch(`${server.url}/api/v1/realtime?websiteId=${DEMO.websiteId}`, { headers: bearer(DEMO.token) });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow(TypeError);
  });

  it('answers every realtime request the same way, whatever its token or query', async () => {
    await setFault({ kind: 'server-error' });
    expect((await server.realtime('')).status).toBe(500);
    expect((await server.realtime('?websiteId=nope', bearer('nope'))).status).toBe(500);
  });

  it('leaves the rest of the service alone: pageviews, limits, CORS', async () => {
    await setFault({ kind: 'server-error' });
    const faulted = await report();
    expect(faulted.headers.get('access-control-allow-origin')).toBe('*');
    expect((await server.postPageview({ websiteId: DEMO.websiteId, visitorId: 'visitor-c' })).status).toBe(202);
    await server.control('DELETE', '/fault');
    const healthy = await report();
    expect(healthy.json).toMatchObject({ currentVisitors: 3 });
    // The faulted request never reached the plan limit.
    expect(healthy.headers.get('x-ratelimit-remaining')).toBe('9999');
  });
});

describe('faults that change when the answer comes', () => {
  it('slow answers normally after delaySeconds (5 by default)', async () => {
    await setFault({ kind: 'slow' });
    let settled = false;
    const pending = report().finally(() => (settled = true));
    await eventually(() => server.emulator.stats().waitingRequests === 1);
    server.time.advance(4_999);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    server.time.advance(1);
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ currentVisitors: 2 });
  });

  it('slow takes a fractional delay', async () => {
    await setFault({ kind: 'slow', delaySeconds: 0.25 });
    const pending = report();
    await eventually(() => server.emulator.stats().waitingRequests === 1);
    server.time.advance(250);
    expect((await pending).status).toBe(200);
  });

  it('hang holds the request until the fault is cleared, then answers normally', async () => {
    await setFault({ kind: 'hang' });
    const pending = report();
    await eventually(() => server.emulator.stats().waitingRequests === 1);
    server.time.advance(10 * 60_000);
    expect(server.emulator.stats().waitingRequests).toBe(1);
    await server.control('DELETE', '/fault');
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(server.emulator.stats().waitingRequests).toBe(0);
  });

  it('hang lets go of a request whose client gave up', async () => {
    await setFault({ kind: 'hang' });
    const client = new AbortController();
    const pending = fetch(`${server.url}/api/v1/realtime?websiteId=${DEMO.websiteId}`, {
      headers: bearer(DEMO.token),
      signal: client.signal,
    });
    await eventually(() => server.emulator.stats().waitingRequests === 1);
    client.abort();
    await expect(pending).rejects.toThrow();
    await eventually(() => server.emulator.stats().waitingRequests === 0);
  });

  it('a hung request follows a new fault set meanwhile', async () => {
    await setFault({ kind: 'hang' });
    const pending = report();
    await eventually(() => server.emulator.stats().waitingRequests === 1);
    await setFault({ kind: 'not-found' });
    expect((await pending).status).toBe(404);
  });

  it('a fault with durationSeconds ends by itself, releasing hung requests', async () => {
    await setFault({ kind: 'hang', durationSeconds: 30 });
    const pending = report();
    await eventually(() => server.emulator.stats().waitingRequests === 1);
    server.time.advance(30_000);
    expect((await pending).status).toBe(200);
    expect((await server.control('GET', '/state')).json).toMatchObject({ fault: null });
  });

  it('a timed fault ends when the clock passes its end, even if its timer has not fired', async () => {
    const time = new FakeTime();
    const lateTimers = { after: () => () => undefined, every: () => () => undefined };
    const emulator = createEmulator({ now: time.now, timers: lateTimers });
    emulator.setFault({ kind: 'server-error', durationSeconds: 1 });
    expect(emulator.state().fault).toMatchObject({ kind: 'server-error', endsAt: new Date(time.now() + 1_000).toISOString() });
    time.advance(1_000);
    expect(emulator.state().fault).toBeNull();
  });
});

describe('the handler without a server', () => {
  const realtimeRequest = (signal?: AbortSignal) =>
    new Request(`http://emulator.test/api/v1/realtime?websiteId=${DEMO.websiteId}`, {
      headers: bearer(DEMO.token),
      ...(signal ? { signal } : {}),
    });

  it('settles a hung request as soon as its signal aborts', async () => {
    const emulator = createEmulator();
    emulator.setFault({ kind: 'hang' });
    const client = new AbortController();
    const pending = emulator.handler(realtimeRequest(client.signal));
    await eventually(() => emulator.stats().waitingRequests === 1);
    client.abort();
    expect((await pending).status).toBe(499);
    expect(emulator.stats().waitingRequests).toBe(0);
  });

  it('settles a slow request as soon as its signal aborts', async () => {
    const time = new FakeTime();
    const emulator = createEmulator({ now: time.now, timers: time });
    emulator.setFault({ kind: 'slow', delaySeconds: 60 });
    const client = new AbortController();
    const pending = emulator.handler(realtimeRequest(client.signal));
    await eventually(() => emulator.stats().waitingRequests === 1);
    expect(time.pendingTimers).toBe(1);
    client.abort();
    expect((await pending).status).toBe(499);
    expect(time.pendingTimers).toBe(0);
  });

  it('answers 503 to held requests when disposed', async () => {
    const emulator = createEmulator();
    emulator.setFault({ kind: 'hang' });
    const pending = emulator.handler(realtimeRequest());
    await eventually(() => emulator.stats().waitingRequests === 1);
    emulator.dispose();
    const answer = await toAnswer(await pending);
    expect(answer.status).toBe(503);
    expect(answer.json).toEqual({ error: 'The emulator is shutting down' });
  });

  it('refuses a bad fault given in code with a TypeError', () => {
    const emulator = createEmulator();
    expect(() => emulator.setFault({ kind: 'slow', delaySeconds: -1 })).toThrow(TypeError);
    expect(() => emulator.setFault({ kind: 'explode' } as never)).toThrow(/kind must be one of/);
  });
});
