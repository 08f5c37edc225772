// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, DEMO, startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const EXPOSED = ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
/** A header's comma-separated list (Hono's CORS joins with "," alone, as HTTP allows). */
const listOf = (value: string | null) => value?.split(/\s*,\s*/);
const preflight = (path: string, method: string) =>
  server.request(path, {
    method: 'OPTIONS',
    headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization' },
  });

describe('CORS, so a shop on another origin can call the service', () => {
  it.each([
    ['/api/v1/realtime', 'GET', ['GET', 'HEAD', 'OPTIONS']],
    ['/api/v1/pageviews', 'POST', ['POST', 'OPTIONS']],
  ])('answers the preflight of %s with 204 and what may be sent', async (path, method, allowed) => {
    const answer = await preflight(path, method);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(listOf(answer.headers.get('access-control-allow-methods'))).toEqual(allowed);
    expect(listOf(answer.headers.get('access-control-allow-headers'))).toEqual(['Authorization', 'Content-Type']);
    expect(answer.headers.get('access-control-max-age')).toBe('600');
  });

  it.each([
    ['a report', `?websiteId=${DEMO.websiteId}`, bearer(DEMO.token), 200],
    ['a 401', `?websiteId=${DEMO.websiteId}`, undefined, 401],
    ['a 400', '', bearer(DEMO.token), 400],
    ['a 404', '?websiteId=nope', bearer(DEMO.token), 404],
  ])('lets any origin read %s, including the rate-limit headers', async (_case, query, headers, status) => {
    const answer = await server.realtime(query, headers);
    expect(answer.status).toBe(status);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(listOf(answer.headers.get('access-control-expose-headers'))).toEqual(EXPOSED);
  });

  it('marks pageview answers, 405s and unknown paths as readable too', async () => {
    const answers = [
      await server.postPageview({ websiteId: DEMO.websiteId, visitorId: 'v' }),
      await server.request('/api/v1/realtime', { method: 'PUT' }),
      await server.request('/nowhere'),
    ];
    expect(answers.map((answer) => answer.headers.get('access-control-allow-origin'))).toEqual(['*', '*', '*']);
  });

  it('gives the control API no CORS headers and no preflight, so other sites cannot drive it', async () => {
    const state = await server.control('GET', '/state');
    expect(state.headers.get('access-control-allow-origin')).toBeNull();
    const refusedPreflight = await preflight('/__emulator/fault', 'POST');
    expect(refusedPreflight.status).toBe(405);
    expect(refusedPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});
