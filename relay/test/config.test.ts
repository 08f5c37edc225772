// @vitest-environment node
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRelayConfig, RelayConfigError } from '../src/config.js';
import { relayConfigWarnings, smallestIntervalWithin, upstreamRequestsPerHour } from '../src/config-warnings.js';
import { parseRelayConfigWithEnvironment, relayConfigFromEnvironment } from '../src/environment-overrides.js';
import { loadRelayConfig } from '../src/server.js';

const TOKEN = 'cfg-SECRET-token-91';
const minimal = { upstream: 'https://analytics.example', websites: [{ id: 'my-shop', token: TOKEN }] };

function issuesOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof RelayConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a RelayConfigError');
}

describe('parseRelayConfig', () => {
  it('never quotes a token pasted into the wrong field', () => {
    const issues = issuesOf(() => parseRelayConfig({ ...minimal, hourlyBudget: TOKEN, allowOrigins: [TOKEN, { id: 'x', token: TOKEN }] }));
    expect(issues.length).toBe(3);
    expect(issues.join('\n')).not.toContain(TOKEN);
    expect(issues.join('\n')).toContain(`a string of ${TOKEN.length} characters`);
  });

  it.each([
    'redis://:s3cret-pass@cache.internal/shop',
    'redis://admin:s3cret-pass@cache.internal:0/1',
    'postgres://admin:s3cret-pass@db.internal/x',
    'redis://admin:s3cret-pass@[broken',
    'redis://admin:s3cret-pass@cache.internal/1?tls=yes',
  ])('never quotes the password of a store URL it refuses: %s', (store) => {
    const issues = issuesOf(() => parseRelayConfig({ ...minimal, store }));
    expect(issues).toHaveLength(1);
    expect(issues[0]).not.toContain('s3cret');
  });

  it('fills in the defaults and normalises the upstream URL', () => {
    const config = parseRelayConfig({ ...minimal, upstream: 'https://analytics.example/base/' });
    expect(config).toEqual({
      upstream: 'https://analytics.example/base',
      websites: [{ id: 'my-shop' }],
      allowOrigins: [],
      interval: 60,
      maxStale: 600,
      hourlyBudget: 100,
      store: 'memory',
      storePrefix: 'live-visitors-relay:',
      storeDownBudget: 0,
      sourceBases: [],
      selfServe: false,
      registrationsPerHour: 60,
      maxWebsites: 1000,
      registrationsFile: null,
      registrationsMayBeLost: false,
      clientAddressHeader: null,
      scriptUrl: null,
      shopifyApp: null,
    });
    expect(config.websites[0]!.token).toBe(TOKEN);
    expect(Object.isFrozen(config)).toBe(true);
    expect(parseRelayConfig(config)).toEqual(config);
  });

  it('keeps the tokens out of JSON and console output of the config', () => {
    const config = parseRelayConfig(minimal);
    expect(JSON.stringify(config)).not.toContain(TOKEN);
    expect(inspect(config, { depth: 5 })).not.toContain(TOKEN);
    expect(parseRelayConfig(config).websites[0]!.token).toBe(TOKEN);
  });

  it.each<[string, unknown, string]>([
    ['not an object', [], 'the config must be a JSON object like { "upstream": "https://…", "websites": [ … ] }'],
    [
      'no upstream',
      { websites: minimal.websites },
      'upstream is required: the realtime service\'s base URL, like "https://analytics.example.com"',
    ],
    [
      'a relative upstream',
      { ...minimal, upstream: '/api' },
      'upstream must be an absolute http(s) URL, like "https://analytics.example.com"',
    ],
    [
      'an ftp upstream',
      { ...minimal, upstream: 'ftp://x.example' },
      'upstream must use https (or http), like "https://analytics.example.com"',
    ],
    ['credentials in upstream', { ...minimal, upstream: 'https://me:pw@x.example' }, 'upstream must not contain a user name or password'],
    [
      'a store that is no URL',
      { ...minimal, store: 'redis' },
      'store must be a Redis URL like "redis://127.0.0.1:6379/0" (or rediss:// for TLS, redis+cluster://host:port,host:port for a Redis Cluster); this one cannot be parsed; or "memory" for one instance',
    ],
    [
      'a store of another kind, with a password',
      { ...minimal, store: 'postgres://admin:s3cret-pass@db.internal/x' },
      'store must be a Redis URL like "redis://127.0.0.1:6379/0" (or rediss:// for TLS, redis+cluster://host:port,host:port for a Redis Cluster); this one\'s scheme is "postgres:"; or "memory" for one instance',
    ],
    [
      'a store whose database is no number',
      { ...minimal, store: 'redis://:s3cret-pass@cache.internal/shop' },
      'store\'s database (the path after the host) must be a whole number from 0, like "redis://127.0.0.1:6379/0" (or rediss:// for TLS, redis+cluster://host:port,host:port for a Redis Cluster); or "memory" for one instance',
    ],
    [
      'a store that is a number',
      { ...minimal, store: 6379 },
      'store must be "memory" or a Redis URL like "redis://127.0.0.1:6379/0" (got 6379)',
    ],
    [
      'a store prefix with spaces',
      { ...minimal, storePrefix: 'my shop' },
      'storePrefix must be up to 64 letters, digits and _ : . - (got "my shop")',
    ],
    [
      'a negative store-down budget',
      { ...minimal, storeDownBudget: -1 },
      'storeDownBudget must be a whole number of requests from 0 to 1000000 (got -1)',
    ],
    [
      'a query in upstream',
      { ...minimal, upstream: 'https://x.example/?a=1' },
      'upstream must not have a query or fragment: the relay adds /api/v1/realtime?websiteId=…',
    ],
    ['no websites', { ...minimal, websites: [] }, 'websites must list at least one website, like [ { "id": "my-shop", "token": "…" } ]'],
    [
      'a website that is a string',
      { ...minimal, websites: ['my-shop'] },
      'websites[0] must be an object like { "id": "my-shop", "token": "…" }',
    ],
    [
      'a misspelt field',
      { ...minimal, websites: [{ id: 'a', token: 't', plan: 'free' }] },
      'websites[0].plan is not a known field (expected id, token, shop, source)',
    ],
    ['an empty id', { ...minimal, websites: [{ id: '', token: 't' }] }, 'websites[0].id must be a non-empty string'],
    ['a long id', { ...minimal, websites: [{ id: 'x'.repeat(257), token: 't' }] }, 'websites[0].id must be at most 256 characters'],
    ['a control character', { ...minimal, websites: [{ id: 'a\nb', token: 't' }] }, 'websites[0].id must not contain control characters'],
    ['a missing token', { ...minimal, websites: [{ id: 'a' }] }, "websites[0].token must be a non-empty string: the website's API token"],
    ['a long token', { ...minimal, websites: [{ id: 'a', token: 't'.repeat(257) }] }, 'websites[0].token must be at most 256 characters'],
    [
      'a token with a space',
      { ...minimal, websites: [{ id: 'a', token: `${TOKEN} x` }] },
      'websites[0].token may only contain letters, digits and - . _ ~ + / (then optional trailing =), as a Bearer token must',
    ],
    [
      'a duplicate id',
      {
        ...minimal,
        websites: [
          { id: 'a', token: 't1' },
          { id: 'a', token: 't2' },
        ],
      },
      'websites[1].id "a" is listed twice',
    ],
    [
      'origins as a string',
      { ...minimal, allowOrigins: 'https://shop.example' },
      'allowOrigins must be an array of origins like ["https://shop.example"] (or ["*"], or [] for same origin only)',
    ],
    [
      'an origin with a slash',
      { ...minimal, allowOrigins: ['https://shop.example/'] },
      'allowOrigins[0] must be an origin like "https://shop.example": scheme, host and port only, no path or trailing slash (got "https://shop.example/")',
    ],
    [
      '"*" among others',
      { ...minimal, allowOrigins: ['*', 'https://shop.example'] },
      'allowOrigins[0] "*" allows every origin, so it must be the only entry',
    ],
    ['a fractional interval', { ...minimal, interval: 1.5 }, 'interval must be a whole number of seconds from 1 to 3600 (got 1.5)'],
    ['an interval as text', { ...minimal, interval: '60' }, 'interval must be a whole number of seconds from 1 to 3600 (got "60")'],
    ['maxStale under interval', { ...minimal, interval: 60, maxStale: 30 }, 'maxStale (30) must be at least interval (60)'],
    ['a zero budget', { ...minimal, hourlyBudget: 0 }, 'hourlyBudget must be a whole number of requests from 1 to 1000000 (got 0)'],
    [
      'a source base with a path',
      { ...minimal, sourceBases: ['https://matomo.shop.example/matomo'] },
      'sourceBases[0] must be an origin like "https://matomo.shop.example": scheme, host and port only, no path or trailing slash (got "https://matomo.shop.example/matomo")',
    ],
    [
      'an unknown field',
      { ...minimal, intervall: 30 },
      'intervall is not a known field (expected upstream, websites, allowOrigins, interval, maxStale, hourlyBudget, store, storePrefix, storeDownBudget, sourceBases, shopifyAppSecret, shopifyApp, selfServe, encryptionKeys, registrationsPerHour, maxWebsites, registrationsFile, registrationsMayBeLost, clientAddressHeader, scriptUrl, metricsToken)',
    ],
  ])('refuses %s', (_name, input, issue) => {
    const issues = issuesOf(() => parseRelayConfig(input, { source: 'relay.json' }));
    expect(issues).toContain(issue);
    expect(issues.join('\n')).not.toContain(TOKEN);
  });

  it('lists every problem at once, under the name of its source', () => {
    expect(() => parseRelayConfig({ websites: [], interval: 0 }, { source: 'relay.json' })).toThrow(
      'Invalid relay config (relay.json):\n  - upstream is required: the realtime service\'s base URL, like "https://analytics.example.com"\n' +
        '  - websites must list at least one website, like [ { "id": "my-shop", "token": "…" } ]\n' +
        '  - interval must be a whole number of seconds from 1 to 3600 (got 0)',
    );
  });
});

describe('environment overrides', () => {
  const env = {
    LIVE_VISITORS_UPSTREAM: 'https://env.example',
    LIVE_VISITORS_WEBSITES: JSON.stringify([{ id: 'env-shop', token: TOKEN }]),
    LIVE_VISITORS_ALLOW_ORIGINS: 'https://a.example, https://b.example',
    LIVE_VISITORS_INTERVAL: '120',
    LIVE_VISITORS_MAX_STALE: '900',
    LIVE_VISITORS_HOURLY_BUDGET: '1000',
    LIVE_VISITORS_STORE: 'redis://cache.internal:6380/2',
    LIVE_VISITORS_STORE_PREFIX: 'shop-a:',
    LIVE_VISITORS_STORE_DOWN_BUDGET: '10',
    LIVE_VISITORS_SOURCE_BASES: 'https://matomo.shop.example, http://127.0.0.1:8080',
  };

  it('builds a whole config from variables alone', () => {
    const config = relayConfigFromEnvironment(env);
    expect(config).toEqual({
      upstream: 'https://env.example',
      websites: [{ id: 'env-shop' }],
      allowOrigins: ['https://a.example', 'https://b.example'],
      interval: 120,
      maxStale: 900,
      hourlyBudget: 1000,
      store: 'redis://cache.internal:6380/2',
      storePrefix: 'shop-a:',
      storeDownBudget: 10,
      sourceBases: ['https://matomo.shop.example', 'http://127.0.0.1:8080'],
      selfServe: false,
      registrationsPerHour: 60,
      maxWebsites: 1000,
      registrationsFile: null,
      registrationsMayBeLost: false,
      clientAddressHeader: null,
      scriptUrl: null,
      shopifyApp: null,
    });
    expect(config.websites[0]!.token).toBe(TOKEN);
  });

  it('overrides the file field by field; empty variables count as unset', () => {
    const config = parseRelayConfigWithEnvironment(
      { ...minimal, interval: 30 },
      {
        LIVE_VISITORS_MAX_STALE: '1200',
        LIVE_VISITORS_ALLOW_ORIGINS: '["https://json.example"]',
        LIVE_VISITORS_UPSTREAM: '  ',
      },
    );
    expect(config).toMatchObject({
      upstream: 'https://analytics.example',
      interval: 30,
      maxStale: 1200,
      allowOrigins: ['https://json.example'],
    });
  });

  it('names the variable a bad value came from, and never quotes a token', () => {
    const issues = issuesOf(() =>
      relayConfigFromEnvironment({ ...env, LIVE_VISITORS_INTERVAL: 'soon', LIVE_VISITORS_WEBSITES: `[{"id":"a","token":"${TOKEN}"` }),
    );
    // The position depends on the JavaScript engine's parser; what matters is the rest.
    expect(issues).toEqual([
      expect.stringMatching(
        /^LIVE_VISITORS_WEBSITES is not valid JSON( \(near character \d+\))?; expected something like \[\{"id":"my-shop","token":"…"\}\]$/,
      ),
    ]);
    expect(issues.join('\n')).not.toContain(TOKEN);
    expect(issuesOf(() => relayConfigFromEnvironment({ ...env, LIVE_VISITORS_INTERVAL: 'soon' }))).toEqual([
      'interval (from LIVE_VISITORS_INTERVAL) must be a whole number of seconds from 1 to 3600 (got "soon")',
    ]);
    expect(issuesOf(() => relayConfigFromEnvironment({ LIVE_VISITORS_WEBSITES: env.LIVE_VISITORS_WEBSITES }))).toEqual([
      'upstream is required: the realtime service\'s base URL, like "https://analytics.example.com"',
    ]);
  });
});

describe('loadRelayConfig', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'relay-config-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('reads a JSON file, with variables on top', async () => {
    const path = join(folder, 'relay.json');
    await writeFile(path, JSON.stringify(minimal));
    expect(await loadRelayConfig(path, { LIVE_VISITORS_INTERVAL: '90' })).toMatchObject({
      upstream: 'https://analytics.example',
      interval: 90,
    });
  });

  it('names the file and the problem, without quoting its text', async () => {
    const path = join(folder, 'broken.json');
    await writeFile(path, `{"upstream":"https://x.example","websites":[{"id":"a","token":"${TOKEN}"}`);
    const error = await loadRelayConfig(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RelayConfigError);
    expect((error as Error).message).toMatch(
      /^Invalid relay config \(.+broken\.json\):\n {2}- the file is not valid JSON( \(near character \d+\))?$/,
    );
    expect((error as Error).message).not.toContain(TOKEN);
    await expect(loadRelayConfig(join(folder, 'missing.json'))).rejects.toThrow('cannot read the file (ENOENT)');
  });
});

describe('relayConfigWarnings', () => {
  it('warns when the interval would spend more than the budget, and says which interval fits', () => {
    const config = parseRelayConfig({
      ...minimal,
      websites: [
        { id: 'a', token: 'ta' },
        { id: 'b', token: 'tb' },
      ],
      interval: 60,
      hourlyBudget: 100,
    });
    expect(upstreamRequestsPerHour(config)).toBe(120);
    expect(relayConfigWarnings(config)).toEqual([
      '2 website(s) refreshed every 60 s need up to 120 upstream requests an hour, more than hourlyBudget (100): ' +
        'late in each hour answers go stale, then fail. Set interval to at least 72, or raise hourlyBudget if your plan allows.',
    ]);
    expect(relayConfigWarnings(parseRelayConfig({ ...config, interval: 72 }))).toEqual([]);
  });

  it.each([
    // websites, budget → smallest interval that fits
    [1, 100, 36],
    [2, 100, 72],
    [3, 100, 110],
    [1, 10_000, 1],
    [7, 1_000, 26],
  ])('%i website(s) on a budget of %i fit from an interval of %i s, and not a second less', (websites, budget, interval) => {
    expect(smallestIntervalWithin(budget, websites)).toBe(interval);
    expect(websites * Math.ceil(3_600 / interval)).toBeLessThanOrEqual(budget);
    if (interval > 1) expect(websites * Math.ceil(3_600 / (interval - 1))).toBeGreaterThan(budget);
  });

  it('asks for a bigger budget when even one request an hour per website does not fit', () => {
    const websites = [1, 2, 3].map((n) => ({ id: `s${n}`, token: `t${n}` }));
    expect(relayConfigWarnings(parseRelayConfig({ ...minimal, websites, interval: 3_600, maxStale: 3_600, hourlyBudget: 2 }))).toEqual([
      expect.stringMatching(
        /need up to 3 upstream requests an hour, more than hourlyBudget \(2\).* Raise hourlyBudget if your plan allows\.$/,
      ),
    ]);
  });

  it('warns about plain http to another machine, not to loopback', () => {
    expect(relayConfigWarnings(parseRelayConfig({ ...minimal, upstream: 'http://analytics.example' }))).toEqual([
      'upstream uses plain http to another machine: the API tokens cross the network unencrypted. Use https.',
    ]);
    for (const upstream of ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787', 'http://emulator.localhost']) {
      expect(relayConfigWarnings(parseRelayConfig({ ...minimal, upstream }))).toEqual([]);
    }
  });
});
