// @vitest-environment node
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Answer, bearer, DEMO, FREE, startTestServer, type TestServer } from './support/test-server.js';

const HOUR_MS = 60 * 60_000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => server.emulator.reset());

const freeReport = (query = `?websiteId=${FREE.websiteId}`) => server.realtime(query, bearer(FREE.token));

async function useUp(count: number, spacingMs = 0): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let request = 0; request < count; request += 1) {
    answers.push(await freeReport());
    server.time.advance(spacingMs);
  }
  return answers;
}

const unixSeconds = (ms: number) => Math.ceil(ms / 1000);

describe('plan limits (per token, rolling hour)', () => {
  it('lets the free plan make 100 requests in an hour, then answers 429 with Retry-After', async () => {
    const startMs = server.time.now();
    const answers = await useUp(100);
    expect(answers.map((answer) => answer.status)).toEqual(Array(100).fill(200));

    const refused = await freeReport();
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ error: 'Rate limit exceeded: 100 requests per hour on the free plan. Retry in 3600 seconds.' });
    expect(refused.headers.get('retry-after')).toBe('3600');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('100');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(unixSeconds(startMs + HOUR_MS)));
  });

  it('counts down X-RateLimit-Remaining on every authenticated answer', async () => {
    const answers = await useUp(3);
    expect(answers.map((answer) => answer.headers.get('x-ratelimit-remaining'))).toEqual(['99', '98', '97']);
    expect(answers.every((answer) => answer.headers.get('x-ratelimit-limit') === '100')).toBe(true);
    expect(answers.every((answer) => answer.headers.get('retry-after') === null)).toBe(true);
  });

  it('frees the slots of requests when they are an hour old, and not a millisecond sooner', async () => {
    await useUp(100);
    server.time.advance(HOUR_MS - 1);
    const stillRefused = await freeReport();
    expect(stillRefused.status).toBe(429);
    expect(stillRefused.headers.get('retry-after')).toBe('1');
    server.time.advance(1);
    const admitted = await freeReport();
    expect(admitted.status).toBe(200);
    // All 100 were made at the same instant, so all 100 slots came back together.
    expect(admitted.headers.get('x-ratelimit-remaining')).toBe('99');
  });

  it('rolls: requests spread over the hour come back one by one', async () => {
    const startMs = server.time.now();
    await useUp(100, 30_000); // one request every 30 s: the last one at 49:30
    server.time.advance(HOUR_MS - 100 * 30_000);
    const first = await freeReport(); // exactly one hour after the first request
    expect(first.status).toBe(200);
    const second = await freeReport();
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('30');
    expect(second.headers.get('x-ratelimit-reset')).toBe(String(unixSeconds(startMs + 30_000 + HOUR_MS)));
  });

  it('does not count refused requests, so a client that backs off gets back in', async () => {
    await useUp(100);
    for (let retry = 0; retry < 20; retry += 1) expect((await freeReport()).status).toBe(429);
    server.time.advance(HOUR_MS);
    expect((await freeReport()).headers.get('x-ratelimit-remaining')).toBe('99');
  });

  it('counts every request made with the token, also those answered 400 or 404', async () => {
    await freeReport('');
    await freeReport('?websiteId=no-such-shop');
    expect((await freeReport()).headers.get('x-ratelimit-remaining')).toBe('97');
  });

  it('limits each token on its own', async () => {
    await useUp(100);
    const demo = await server.realtime(`?websiteId=${DEMO.websiteId}`, bearer(DEMO.token));
    expect(demo.status).toBe(200);
    expect(demo.headers.get('x-ratelimit-limit')).toBe('10000');
    expect(demo.headers.get('x-ratelimit-remaining')).toBe('9999');
  });

  it('sends no rate-limit headers to a caller without a valid token', async () => {
    const answer = await server.realtime(`?websiteId=${FREE.websiteId}`, bearer('nope'));
    expect(answer.status).toBe(401);
    expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('holds at most one hour of accepted requests in memory', async () => {
    await useUp(100);
    for (let retry = 0; retry < 50; retry += 1) await freeReport();
    expect(server.emulator.stats().trackedRateLimitRequests).toBe(100);
  });
});

describe('plan limits of pro and enterprise', () => {
  it('gives pro 1,000 and enterprise 10,000 requests per hour', async () => {
    const config = {
      websites: [
        { id: 'pro-shop', token: 'pro-token', plan: 'pro' as const },
        { id: 'big-shop', token: 'big-token', plan: 'enterprise' as const },
      ],
    };
    const other = await import('./support/test-server.js').then(({ startTestServer: start }) => start({ config }));
    try {
      const pro = await other.realtime('?websiteId=pro-shop', bearer('pro-token'));
      const enterprise = await other.realtime('?websiteId=big-shop', bearer('big-token'));
      expect(pro.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(enterprise.headers.get('x-ratelimit-limit')).toBe('10000');
    } finally {
      await other.close();
    }
  });
});
