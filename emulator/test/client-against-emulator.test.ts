// @vitest-environment node
// The widget's fetch layer against the emulator over real HTTP: the two were written apart, from the one spec.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchRealtimeAnswer, fetchRealtimeReport } from '../../src/realtime/client.js';
import { RealtimeError } from '../../src/realtime/errors.js';
import { DEMO, FREE, startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server.close();
});

async function failure(promise: Promise<unknown>): Promise<RealtimeError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(RealtimeError);
  return error as RealtimeError;
}

describe('the client against the emulator', () => {
  it('reads a valid report: unique visitors of the last 3 minutes, the website asked for, the collection time', async () => {
    for (const visitor of ['a', 'b', 'a', 'c']) server.emulator.recordPageview(DEMO.websiteId, visitor, server.time.now());
    const { report, ageMs } = await fetchRealtimeAnswer({ apiBase: server.url, ...DEMO });
    expect(report).toEqual({ currentVisitors: 3, websiteId: DEMO.websiteId, timestamp: new Date(server.time.now()).toISOString() });
    expect(ageMs).toBe(0);
  });

  it.each([
    [
      'a wrong token',
      { ...DEMO, token: 'not-the-token' },
      'unauthorized',
      401,
      'Missing or invalid authorization header. Expected: Bearer <token>',
    ],
    [
      'no token at all',
      { websiteId: DEMO.websiteId },
      'unauthorized',
      401,
      'Missing or invalid authorization header. Expected: Bearer <token>',
    ],
    ['an unknown website', { websiteId: 'no-such-shop', token: DEMO.token }, 'not-found', 404, 'Website not found'],
    ['an empty website id', { websiteId: '', token: DEMO.token }, 'bad-request', 400, 'websiteId is required'],
  ])('turns %s into a typed error quoting the service', async (_, request, kind, status, said) => {
    const error = await failure(fetchRealtimeReport({ apiBase: server.url, ...request }));
    expect({ kind: error.kind, status: error.status }).toEqual({ kind, status });
    expect(error.message).toContain(said);
    expect(error.message).not.toContain(DEMO.token);
  });

  it('reads the plan limit as rate-limited, with the Retry-After the emulator sends', async () => {
    let error: RealtimeError | null = null;
    for (let request = 0; request <= 100 && !error; request += 1) {
      error = await fetchRealtimeReport({ apiBase: server.url, ...FREE }).then(
        () => null,
        (reason: RealtimeError) => reason,
      );
    }
    expect(error?.kind).toBe('rate-limited');
    expect(error?.retryAfterMs).toBeGreaterThan(0);
    expect(error?.retryAfterMs).toBeLessThanOrEqual(3_600_000);
  });

  it.each([
    [{ kind: 'server-error' }, 'server'],
    [{ kind: 'unavailable' }, 'server'],
    [{ kind: 'html' }, 'invalid-response'],
    [{ kind: 'invalid-json' }, 'invalid-response'],
    [{ kind: 'invalid-count', value: -3 }, 'invalid-response'],
    [{ kind: 'wrong-website' }, 'invalid-response'],
    [{ kind: 'reset' }, 'network'],
  ] as const)('turns the fault %j into %s', async (fault, kind) => {
    server.emulator.setFault(fault);
    try {
      expect((await failure(fetchRealtimeReport({ apiBase: server.url, ...DEMO }))).kind).toBe(kind);
    } finally {
      server.emulator.clearFault();
    }
  });

  it('gives up on a hanging answer after its timeout, and the emulator lets go of it', async () => {
    server.emulator.setFault({ kind: 'hang' });
    try {
      const error = await failure(fetchRealtimeReport({ apiBase: server.url, ...DEMO, timeoutMs: 200 }));
      expect(error.kind).toBe('timeout');
    } finally {
      server.emulator.clearFault();
    }
  });
});
