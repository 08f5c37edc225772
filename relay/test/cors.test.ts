// @vitest-environment node
import { afterEach, describe, expect, it } from 'vitest';
import { type RelayHarness, SHOP, startRelayHarness } from './support/relay-harness.js';

const query = `?websiteId=${SHOP.id}`;
const ALLOWED = 'https://shop.example';
const REFUSED = 'https://evil.example';

let h: RelayHarness | undefined;
afterEach(() => h?.close());

const preflight = (origin: string, headers: Record<string, string> = {}) =>
  h!.get('', { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', ...headers } });

describe('CORS from allowOrigins', () => {
  it('lets a listed origin read answers and errors, and varies on Origin', async () => {
    h = await startRelayHarness();
    for (const answer of [
      await h.get(query, { headers: { Origin: ALLOWED } }),
      await h.get('?websiteId=x', { headers: { Origin: ALLOWED } }),
    ]) {
      expect(answer.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(answer.headers.get('access-control-expose-headers')).toBe('Retry-After, ETag, Age');
      expect(answer.headers.get('vary')).toBe('Origin');
    }
  });

  it('gives another origin no Access-Control-Allow-Origin, so its browser withholds the answer', async () => {
    h = await startRelayHarness();
    for (const origin of [REFUSED, 'http://shop.example', 'https://shop.example:8443', 'null']) {
      const answer = await h.get(query, { headers: { Origin: origin } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      expect(answer.headers.get('vary')).toBe('Origin');
    }
    // No Origin at all: a same-origin page or a server.
    expect((await h.get(query)).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a preflight from a listed origin, and refuses one from elsewhere with 403', async () => {
    h = await startRelayHarness();
    const allowed = await preflight(ALLOWED, { 'Access-Control-Request-Headers': 'authorization' });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(allowed.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
    expect(allowed.headers.get('access-control-allow-headers')).toBe('Authorization, If-None-Match');
    expect(allowed.headers.get('access-control-max-age')).toBe('600');

    const refused = await preflight(REFUSED);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(refused.json).toEqual({ error: expect.stringContaining("This origin may not read this website's count") });

    const noOrigin = await h.get('', { method: 'OPTIONS' });
    expect(noOrigin.status).toBe(204);
    expect(noOrigin.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(h.upstreamCalls).toHaveLength(0);
  });

  it('allows every origin with ["*"] (no Vary needed) and none with []', async () => {
    h = await startRelayHarness({ config: { allowOrigins: ['*'] } });
    const any = await h.get(query, { headers: { Origin: REFUSED } });
    expect(any.headers.get('access-control-allow-origin')).toBe('*');
    expect(any.headers.get('vary')).toBeNull();
    await h.close();

    h = await startRelayHarness({ config: { allowOrigins: [] } });
    const none = await h.get(query, { headers: { Origin: ALLOWED } });
    expect(none.status).toBe(200);
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
    expect(none.headers.get('vary')).toBeNull();
    expect((await preflight(ALLOWED)).status).toBe(403);
  });
});
