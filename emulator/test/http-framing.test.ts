// @vitest-environment node
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, DEMO, startTestServer, type TestServer } from './support/test-server.js';

/** What came back on one raw connection, and how the connection ended. */
interface Exchange {
  readonly text: string;
  readonly ended: 'closed cleanly' | 'reset' | 'still open';
}

/** Of a pause between two looks at the socket, at most this much counts as silence: more is this process stalled. */
const LOOK_EVERY_MS = 10;
const SILENCE_PER_LOOK_MS = 2 * LOOK_EVERY_MS;

/**
 * Raw HTTP/1.1 on one connection, for what `fetch` cannot send (a POST with no framing header)
 * or cannot show (how the connection ended): each write waits until the server has been quiet
 * for `quietMs`, so a pipelined request goes after the answer to the one before. Quiet is counted
 * only while this process runs (the server is in it): a stall on a busy machine, when neither side
 * ran, is not the server keeping quiet.
 */
async function exchange(url: string, writes: readonly string[], quietMs = 150): Promise<Exchange> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let text = '';
  let ended: Exchange['ended'] = 'still open';
  let lastActivity = Date.now();
  socket.on('data', (chunk) => {
    text += chunk.toString('latin1');
    lastActivity = Date.now();
  });
  socket.on('end', () => {
    if (ended === 'still open') ended = 'closed cleanly';
  });
  socket.on('error', () => {
    ended = 'reset';
  });
  const quiet = async () => {
    lastActivity = Date.now();
    let silentMs = 0;
    let lookedAt = Date.now();
    while (silentMs < quietMs && ended === 'still open') {
      await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
      // setImmediate: whatever arrived during a stall is read before the silence is counted.
      await new Promise((resolve) => setImmediate(resolve));
      const now = Date.now();
      silentMs = lastActivity > lookedAt ? 0 : silentMs + Math.min(now - lookedAt, SILENCE_PER_LOOK_MS);
      lookedAt = now;
    }
  };
  for (const chunk of writes) {
    if (ended !== 'still open') break;
    socket.write(chunk);
    await quiet();
  }
  socket.destroy();
  return { text, ended };
}

const statusLines = (text: string) => [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));
const REALTIME = `GET /api/v1/realtime?websiteId=${DEMO.websiteId} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${DEMO.token}\r\n\r\n`;

let server: TestServer;
const unexpected: unknown[] = [];
beforeAll(async () => {
  server = await startTestServer({ onError: (error) => unexpected.push(error) });
});
afterAll(() => server.close());

describe('request framing over real HTTP/1.1', () => {
  it.each([
    ['/api/v1/pageviews', ''],
    ['/__emulator/fault', 'Content-Type: application/json\r\n'],
    ['/__emulator/traffic', 'Content-Type: application/json\r\n'],
  ])('POST %s with neither a body nor Content-Length is a 400 that asks for the body, not a 500', async (path, headers) => {
    const { text } = await exchange(server.url, [`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`]);
    expect(statusLines(text)).toEqual([400]);
    expect(text).toContain('{"error":"Request body is required: a JSON object"}');
    expect(unexpected).toEqual([]);
  });

  it('after a 413 to a large declared body, the connection is closed cleanly and says so', async () => {
    const body = 'x'.repeat(1_000_000);
    const oversized = `POST /api/v1/pageviews HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const { text, ended } = await exchange(server.url, [oversized, REALTIME]);
    expect(statusLines(text)).toEqual([413]);
    expect(text).toMatch(/^connection: close\r$/im);
    expect(ended).toBe('closed cleanly');
  });

  it('a client that sends oversized bodies and then reads counts never sees a reset connection', async () => {
    const body = 'x'.repeat(1_000_000);
    const statuses: number[] = [];
    for (let round = 0; round < 8; round += 1) {
      statuses.push((await server.request('/api/v1/pageviews', { method: 'POST', body })).status);
      statuses.push((await server.request(`/api/v1/realtime?websiteId=${DEMO.websiteId}`, { headers: bearer(DEMO.token) })).status);
    }
    expect(statuses).toEqual(Array.from({ length: 8 }, () => [413, 200]).flat());
  });

  it('a small oversized body streamed in chunks is refused the same way', async () => {
    const chunk = 'x'.repeat(5_000);
    const streamed = `POST /api/v1/pageviews HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`;
    const { text, ended } = await exchange(server.url, [streamed, REALTIME]);
    expect(statusLines(text)).toEqual([413]);
    expect(text).toMatch(/^connection: close\r$/im);
    expect(ended).toBe('closed cleanly');
  });
});
