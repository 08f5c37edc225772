// @vitest-environment node
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, DEMO, startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => server.emulator.reset());

const count = async () =>
  ((await server.realtime(`?websiteId=${DEMO.websiteId}`, bearer(DEMO.token))).json as { currentVisitors: number }).currentVisitors;
const isoAgo = (ms: number) => new Date(server.time.now() - ms).toISOString();

describe('POST /api/v1/pageviews', () => {
  it('accepts a pageview with 202, without a token, and counts its visitor', async () => {
    const answer = await server.postPageview({ websiteId: DEMO.websiteId, visitorId: 'visitor-a' });
    expect(answer.status).toBe(202);
    expect(answer.json).toEqual({ accepted: true });
    expect(await count()).toBe(1);
  });

  it('reads the body as JSON whatever the Content-Type, as sendBeacon sends text/plain', async () => {
    const answer = await server.postPageview(
      { websiteId: DEMO.websiteId, visitorId: 'visitor-a' },
      { 'Content-Type': 'text/plain;charset=UTF-8' },
    );
    expect(answer.status).toBe(202);
    expect(await count()).toBe(1);
  });

  it('ignores extra fields, such as the page URL a tracker sends', async () => {
    const answer = await server.postPageview({ websiteId: DEMO.websiteId, visitorId: 'visitor-a', url: '/offer', referrer: null });
    expect(answer.status).toBe(202);
  });

  it('backdates a pageview to its timestamp: 2:59 ago counts, 3:01 ago does not', async () => {
    expect((await server.postPageview({ websiteId: DEMO.websiteId, visitorId: 'recent', timestamp: isoAgo(179_000) })).status).toBe(202);
    expect((await server.postPageview({ websiteId: DEMO.websiteId, visitorId: 'gone', timestamp: isoAgo(181_000) })).status).toBe(202);
    expect(await count()).toBe(1);
    server.time.advance(1_001); // the recent one is now 3:00.001 old
    expect(await count()).toBe(0);
  });

  it('accepts a timestamp with an offset and without milliseconds', async () => {
    const at = new Date(server.time.now() - 60_000);
    const local = `${at.toISOString().slice(0, 11)}${String(at.getUTCHours() + 1).padStart(2, '0')}${at.toISOString().slice(13, 19)}+01:00`;
    expect((await server.postPageview({ websiteId: DEMO.websiteId, visitorId: 'v', timestamp: local })).status).toBe(202);
    expect(await count()).toBe(1);
  });

  it('never moves a visitor back in time with an older pageview', async () => {
    await server.postPageview({ websiteId: DEMO.websiteId, visitorId: 'visitor-a' });
    await server.postPageview({ websiteId: DEMO.websiteId, visitorId: 'visitor-a', timestamp: isoAgo(170_000) });
    server.time.advance(60_000);
    expect(await count()).toBe(1);
  });

  it('refuses a timestamp in the future, even by a millisecond', async () => {
    const answer = await server.postPageview({ websiteId: DEMO.websiteId, visitorId: 'v', timestamp: isoAgo(-1) });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 'timestamp must not be in the future' });
    expect(await count()).toBe(0);
  });

  it('answers 404 "Website not found" for an unknown website', async () => {
    const answer = await server.postPageview({ websiteId: 'no-such-shop', visitorId: 'v' });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error: 'Website not found' });
  });

  const badTimestamp = 'timestamp must be an ISO 8601 date-time with a time zone, like 2025-01-31T12:00:00.000Z';
  it.each([
    ['not JSON', '{"websiteId": "demo-shop",', 'Request body must be valid JSON'],
    ['empty', '', 'Request body is required: a JSON object'],
    ['an array', [DEMO.websiteId, 'v'], 'Request body must be a JSON object like { "websiteId": "…", "visitorId": "…" }'],
    ['null', 'null', 'Request body must be a JSON object like { "websiteId": "…", "visitorId": "…" }'],
    ['a string', '"hello"', 'Request body must be a JSON object like { "websiteId": "…", "visitorId": "…" }'],
    ['without websiteId', { visitorId: 'v' }, 'websiteId is required'],
    ['with an empty websiteId', { websiteId: '', visitorId: 'v' }, 'websiteId is required'],
    ['with a numeric websiteId', { websiteId: 42, visitorId: 'v' }, 'websiteId must be a string'],
    ['with an overlong websiteId', { websiteId: 'x'.repeat(257), visitorId: 'v' }, 'websiteId must be at most 256 characters'],
    ['without visitorId', { websiteId: DEMO.websiteId }, 'visitorId is required'],
    ['with an empty visitorId', { websiteId: DEMO.websiteId, visitorId: '' }, 'visitorId is required'],
    ['with an object visitorId', { websiteId: DEMO.websiteId, visitorId: { id: 1 } }, 'visitorId must be a string'],
    ['with an overlong visitorId', { websiteId: DEMO.websiteId, visitorId: 'v'.repeat(257) }, 'visitorId must be at most 256 characters'],
    ['with a numeric timestamp', { websiteId: DEMO.websiteId, visitorId: 'v', timestamp: 1_700_000_000_000 }, badTimestamp],
    ['with a null timestamp', { websiteId: DEMO.websiteId, visitorId: 'v', timestamp: null }, badTimestamp],
    ['with a date only', { websiteId: DEMO.websiteId, visitorId: 'v', timestamp: '2025-01-15' }, badTimestamp],
    ['with a time without zone', { websiteId: DEMO.websiteId, visitorId: 'v', timestamp: '2025-01-15T11:59:00' }, badTimestamp],
    ['with a day that does not exist', { websiteId: DEMO.websiteId, visitorId: 'v', timestamp: '2025-01-32T11:59:00Z' }, badTimestamp],
    ['with February 30th', { websiteId: DEMO.websiteId, visitorId: 'v', timestamp: '2024-02-30T11:59:00Z' }, badTimestamp],
    ['with hour 24', { websiteId: DEMO.websiteId, visitorId: 'v', timestamp: '2025-01-14T24:00:00Z' }, badTimestamp],
    ['with an impossible offset', { websiteId: DEMO.websiteId, visitorId: 'v', timestamp: '2025-01-14T10:00:00+24:00' }, badTimestamp],
    ['with words', { websiteId: DEMO.websiteId, visitorId: 'v', timestamp: 'yesterday' }, badTimestamp],
  ])('answers 400 to a body that is %s', async (_case, body, message) => {
    const answer = await server.postPageview(body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: message });
    expect(answer.headers.get('content-type')).toBe('application/json');
  });

  it('answers 400 to a body that is not UTF-8', async () => {
    const answer = await server.request('/api/v1/pageviews', { method: 'POST', body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 'Request body must be valid JSON' });
  });

  it('answers 413 to a body over 4 KB, declared or streamed, and records nothing', async () => {
    const padded = JSON.stringify({ websiteId: DEMO.websiteId, visitorId: 'v', padding: 'x'.repeat(5_000) });
    const declared = await server.postPageview(padded);
    expect(declared.status).toBe(413);
    expect(declared.json).toEqual({ error: 'Request body must be at most 4096 bytes' });

    const encoder = new TextEncoder();
    const streamed = await server.request('/api/v1/pageviews', {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          for (let chunk = 0; chunk < 10; chunk += 1)
            controller.enqueue(encoder.encode(chunk === 0 ? padded.slice(0, 1000) : 'x'.repeat(1000)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await count()).toBe(0);
  });

  it('accepts a body of exactly 4096 bytes', async () => {
    const base = JSON.stringify({ websiteId: DEMO.websiteId, visitorId: 'v', padding: '' });
    const body = JSON.stringify({ websiteId: DEMO.websiteId, visitorId: 'v', padding: 'x'.repeat(4096 - base.length) });
    expect(body.length).toBe(4096);
    expect((await server.postPageview(body)).status).toBe(202);
  });

  it('answers GET with 405 and Allow', async () => {
    const answer = await server.request('/api/v1/pageviews');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST, OPTIONS');
  });
});
