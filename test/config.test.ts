import { describe, expect, it } from 'vitest';
import { type ConfigResult, resolveApiBase, resolveConfig, type WidgetAttributes, type WidgetConfig } from '../src/config.js';

const PAGE = 'https://shop.example/products/red-shoes?ref=mail#reviews';
const ORIGIN = 'https://shop.example';

let sequence = 0;
function freshWebsiteId(): string {
  return `site-${++sequence}`;
}

function ok(result: ConfigResult): WidgetConfig {
  if (typeof result === 'string') throw new Error(`expected a configuration, got: ${result}`);
  return result;
}

function message(result: ConfigResult): string {
  if (typeof result !== 'string') throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result;
}

/** Resolves with a valid website id unless the attributes say otherwise. */
function resolve(attributes: WidgetAttributes, pageUrl: string | undefined = PAGE): ConfigResult {
  return resolveConfig({ websiteId: freshWebsiteId(), ...attributes }, pageUrl);
}

describe('website-id', () => {
  it.each<[string, string | null | undefined]>([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['blank', ' \n\t '],
  ])('is rejected when %s, naming the attribute', (_, websiteId) => {
    expect(message(resolve({ websiteId }))).toContain('website-id');
  });

  it.each<[string, string]>([
    ['  shop-42\n', 'shop-42'],
    // No length limit of ours: the service answers an id it does not know with 404.
    ['x'.repeat(1000), 'x'.repeat(1000)],
    ['<img src=x onerror=alert(1)>', '<img src=x onerror=alert(1)>'],
  ])('%j is accepted as %j', (websiteId, expected) => {
    expect(ok(resolve({ websiteId })).key.websiteId).toBe(expected);
  });
});

describe('token', () => {
  it.each<[string, string | null | undefined, string | undefined]>([
    ['missing', undefined, undefined],
    ['null', null, undefined],
    ['empty', '', undefined],
    ['blank', '   ', undefined],
    ['padded', '  tok_abc123  ', 'tok_abc123'],
    ['with a trailing newline', 'tok_abc123\n', 'tok_abc123'],
    ['full of punctuation', 'a.b-c_d~e+f/g=', 'a.b-c_d~e+f/g='],
  ])('%s → %j', (_, token, expected) => {
    expect(ok(resolve({ token })).key.token).toBe(expected);
  });

  it.each<[string, string]>([
    ['an inner space', 'tok abc'],
    ['an inner newline', 'tok\nabc'],
    ['a tab', 'tok\tabc'],
    ['non-ASCII', 'tök_abc'],
    ['an emoji', 'tok_🔑'],
    ['a control character', 'tok\u0000abc'],
  ])('with %s is rejected, naming the attribute', (_, token) => {
    expect(message(resolve({ token }))).toMatch(/\btoken\b/);
  });
});

describe('api-base', () => {
  it.each<[string, string | null | undefined, string]>([
    ['missing → the page origin', undefined, ORIGIN],
    ['null → the page origin', null, ORIGIN],
    ['blank → the page origin', '  ', ORIGIN],
    ['an absolute path', '/relay', `${ORIGIN}/relay`],
    ['a trailing slash', 'https://stats.example.com/', 'https://stats.example.com'],
    ['several trailing slashes after a prefix', 'https://stats.example.com/analytics///', 'https://stats.example.com/analytics'],
    ['a deep path prefix', 'https://stats.example.com/a/b', 'https://stats.example.com/a/b'],
    ['a port', 'http://localhost:8080/', 'http://localhost:8080'],
    ['upper case scheme and host', 'HTTPS://Stats.Example.COM', 'https://stats.example.com'],
    ['a protocol-relative URL', '//cdn.example/v', 'https://cdn.example/v'],
    ['surrounding spaces', '  https://stats.example.com  ', 'https://stats.example.com'],
  ])('%s', (_, apiBase, expected) => {
    expect(ok(resolve({ apiBase })).key.apiBase).toBe(expected);
    expect(resolveApiBase(apiBase, PAGE)).toBe(expected);
  });

  it.each<[string, string]>([
    ['javascript:', 'javascript:alert(1)'],
    ['a host without a scheme (would read as a path on the shop)', 'analytics.example.com'],
    ['a path relative to the page', 'relay'],
    ['ftp:', 'ftp://files.example.com'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['file:', 'file:///etc/passwd'],
    ['a scheme without host', 'http://'],
    ['a space in the host', 'https://stats example.com'],
    ['a broken IPv6 host', 'http://[::1'],
    ['a user and password', 'https://user:secret@stats.example.com'],
    ['a user name alone', 'https://user@stats.example.com'],
  ])('rejects %s, naming the attribute', (_, apiBase) => {
    expect(message(resolve({ apiBase }))).toContain('api-base');
  });

  // Issue 25, defect 9 (failed on 8a36914): these pass the "path" check, yet the URL parser reads another host in them.
  it.each<[string, string]>([
    ['a backslash after the slash', '/\\evil.example'],
    ['a backslash and a path', '/\\evil.example/relay'],
    ['a tab between the slashes', '/\t/evil.example'],
    ['a newline between the slashes', '/\n/evil.example'],
    ['a scheme, a slash and a backslash', 'https:/\\evil.example'],
    ['http: and a backslash', 'http:/\\evil.example'],
  ])("a path-looking value with %s stays on the page's origin or is refused", (_, apiBase) => {
    const resolved = resolveApiBase(apiBase, PAGE);
    if (resolved !== null) expect(new URL(resolved).origin).toBe(ORIGIN);
    const config = resolve({ apiBase });
    if (typeof config === 'string') expect(config).toContain('api-base');
    else expect(new URL(config.key.apiBase).origin).toBe(ORIGIN);
  });

  it('is rejected when left out on a page without an http(s) origin', () => {
    expect(message(resolve({}, 'file:///Users/me/shop.html'))).toContain('api-base');
  });

  it('needs an absolute api-base where there is no page URL (server-side)', () => {
    expect(resolveApiBase(undefined, undefined)).toBeNull();
    expect(resolveApiBase('/relay', undefined)).toBeNull();
    expect(resolveApiBase('https://stats.example.com/', undefined)).toBe('https://stats.example.com');
  });

  it('defaults to the current location when no page URL is passed', () => {
    expect(ok(resolveConfig({ websiteId: freshWebsiteId() })).key.apiBase).toBe(location.origin);
  });
});

describe('interval', () => {
  it.each<[number | null | undefined, number]>([
    [undefined, 60_000],
    [null, 60_000],
    [Number.NaN, 60_000],
    [Number.POSITIVE_INFINITY, 60_000],
    [60, 60_000],
    [15, 15_000],
    [14, 15_000],
    [1, 15_000],
    [0, 15_000],
    [-30, 15_000],
    [300, 300_000],
    [1e9, 24 * 60 * 60_000],
  ])('%s seconds → %i ms', (interval, intervalMs) => {
    expect(ok(resolve({ interval })).intervalMs).toBe(intervalMs);
  });
});

describe('min', () => {
  it.each<[number | null | undefined, number]>([
    [undefined, 1],
    [null, 1],
    [Number.NaN, 1],
    [0, 1],
    [-5, 1],
    [1, 1],
    [1.2, 2],
    [5, 5],
  ])('%s → %i', (min, expected) => {
    expect(ok(resolve({ min })).min).toBe(expected);
  });
});

describe('max-age', () => {
  it.each<[string, WidgetAttributes, number]>([
    ['defaults to 600 s', {}, 600_000],
    ['NaN → default', { maxAge: Number.NaN }, 600_000],
    ['null → default', { maxAge: null }, 600_000],
    ['is kept when long enough', { maxAge: 900 }, 900_000],
    ['is raised to interval + 10 s', { maxAge: 30 }, 70_000],
    ['0 is raised to interval + 10 s', { maxAge: 0 }, 70_000],
    ['the default is raised for a long interval', { interval: 900 }, 910_000],
    ['uses the raised interval (5 → 15) for the floor', { interval: 5, maxAge: 0 }, 25_000],
  ])('%s', (_, attributes, maxAgeMs) => {
    expect(ok(resolve(attributes)).maxAgeMs).toBe(maxAgeMs);
  });
});

describe('the whole configuration', () => {
  it('is built from all attributes together', () => {
    expect(
      resolveConfig({ websiteId: ' shop-7 ', token: ' tok_1 ', apiBase: '/relay/', interval: 120, maxAge: 900, min: 3 }, PAGE),
    ).toStrictEqual({
      key: { apiBase: `${ORIGIN}/relay`, websiteId: 'shop-7', token: 'tok_1' },
      intervalMs: 120_000,
      maxAgeMs: 900_000,
      min: 3,
    });
  });

  it('never puts the token into an error message', () => {
    const token = 'tok_SECRET_7f3a9c21e5 x';
    expect(message(resolve({ token }))).not.toContain('tok_SECRET');
    expect(message(resolve({ token: 'tok_SECRET_7f3a9c21e5', apiBase: 'ftp://x' }))).not.toContain('tok_SECRET');
  });
});
