// @vitest-environment node
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cacheControl, etagFor, matchesIfNoneMatch } from '../src/responses.js';
import { type RelayHarness, SHOP, startRelayHarness } from './support/relay-harness.js';

const query = `?websiteId=${SHOP.id}`;
/** What the harness's config (interval 60 s, maxStale 600 s) asks of every cache. */
const CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=60, stale-if-error=540';

describe('cacheControl', () => {
  it.each([
    // interval, maxStale, expected: one interval fresh from the upstream fetch (Age counts it), never past maxStale.
    [60, 600, 'public, max-age=60, stale-while-revalidate=60, stale-if-error=540'],
    [60, 90, 'public, max-age=60, stale-while-revalidate=30, stale-if-error=30'],
    [60, 60, 'public, max-age=60, stale-while-revalidate=0, stale-if-error=0'],
  ])('interval %s s, maxStale %s s → %s', (interval, maxStale, expected) => {
    expect(cacheControl({ interval, maxStale })).toBe(expected);
  });
});

describe('If-None-Match', () => {
  it.each([
    [null, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc"', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['', false],
  ])('%j matches "abc": %s', (header, expected) => {
    expect(matchesIfNoneMatch(header, '"abc"')).toBe(expected);
  });

  it('gives different bodies different tags, and the same body the same tag', async () => {
    const one = await etagFor('{"currentVisitors":1}');
    expect(one).toMatch(/^"[0-9a-f]{16}"$/);
    expect(await etagFor('{"currentVisitors":1}')).toBe(one);
    expect(await etagFor('{"currentVisitors":2}')).not.toBe(one);
  });
});

describe('HTTP caching of relay answers', () => {
  let h: RelayHarness;
  beforeAll(async () => {
    h = await startRelayHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.clock.advance(3_600_000));

  it('lets a CDN keep an answer exactly until the relay refreshes, and never past maxStale', async () => {
    const first = await h.get(query);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(first.headers.get('cache-control')).toBe(CACHE_CONTROL);
    h.clock.advance(45_000);
    const later = await h.get(query);
    // Fresh for 60 s from the upstream fetch, of which Age says 45 are gone: 15 s left, as for the relay.
    expect(later.headers.get('cache-control')).toBe(CACHE_CONTROL);
    expect(later.headers.get('age')).toBe('45');
  });

  it('tells CDNs the same in CDN-Cache-Control (RFC 9213), and never sends s-maxage', async () => {
    const answer = await h.get(query);
    expect(answer.headers.get('cdn-cache-control')).toBe(CACHE_CONTROL);
    // s-maxage would forbid shared caches to serve stale (proxy-revalidate), and Vercel would hide max-age from browsers.
    expect(answer.headers.get('cache-control')).not.toContain('s-maxage');
  });

  it('says how old the answer is (Age), so the widget counts max-age from the upstream fetch', async () => {
    expect((await h.get(query)).headers.get('age')).toBe('0');
    h.clock.advance(45_500);
    expect((await h.get(query)).headers.get('age')).toBe('45');
  });

  it('answers 304 to a matching If-None-Match, with the same validators and no body; 200 once the data changed', async () => {
    const first = await h.get(query);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);

    h.clock.advance(10_000);
    const unchanged = await h.get(query, { headers: { 'If-None-Match': etag, Origin: 'https://shop.example' } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect(unchanged.headers.get('cache-control')).toBe(CACHE_CONTROL);
    expect(unchanged.headers.get('cdn-cache-control')).toBe(CACHE_CONTROL);
    expect(unchanged.headers.get('age')).toBe('10');
    expect(unchanged.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect((await h.get(query, { headers: { 'If-None-Match': '"something-else"' } })).status).toBe(200);

    h.clock.advance(60_000);
    const changed = await h.get(query, { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(h.upstreamCalls.length).toBeGreaterThanOrEqual(2);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await h.get(query);
    const head = await h.get(query, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    for (const name of ['etag', 'cache-control', 'cdn-cache-control', 'content-type']) {
      expect(head.headers.get(name)).toBe(get.headers.get(name));
    }
  });

  it('marks errors as not cacheable, for CDNs too', async () => {
    const missing = await h.get('?websiteId=nobody');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect(missing.headers.get('cdn-cache-control')).toBe('no-store');
    expect(missing.headers.get('etag')).toBeNull();
    expect(missing.headers.get('age')).toBeNull();
  });
});
