// @vitest-environment node
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holds } from '../../test/support/properties.js';
import { parseRelayConfig, RelayConfigError } from '../src/config.js';
import { relayConfigWarnings } from '../src/config-warnings.js';
import { relayConfigFromEnvironment } from '../src/environment-overrides.js';
import { SIGNED_TIME_MAX_SKEW_SECONDS } from '../src/shopify-app/app-secret.js';
import { AppProxyVerifier, appProxySignedText } from '../src/shopify-app-proxy.js';
import { answerText, OTHER_SHOP, type RelayHarness, SHOP, startRelayHarness } from './support/relay-harness.js';
import { shopifySignature, signedProxyQuery } from './support/shopify-app-proxy-signing.js';

// Shopify's "Authenticate app proxies" page: shared secret `hush`, and the query it forwards for
// `/apps/awesome_reviews/extra/path/components?extra=1&extra=2` with the signature it shows.
const DOCUMENTED_SECRET = 'hush';
const DOCUMENTED_QUERY =
  'extra=1&extra=2&shop=shop-name.myshopify.com&logged_in_customer_id=1&path_prefix=%2Fapps%2Fawesome_reviews&timestamp=1317327555&signature=4c68c8624d737112c91818c11017d24d334b524cb5c2b8ba08daa056f7395ddb';
// The same page's earlier edition: no logged_in_customer_id, and its own signature.
const EARLIER_DOCUMENTED_QUERY =
  'extra=1&extra=2&shop=shop-name.myshopify.com&path_prefix=%2Fapps%2Fawesome_reviews&timestamp=1317327555&signature=a9718877bea71c2484f91608a7eaea1532bdf71f5c56825065fa4ccabe549ef3';
const DOCUMENTED_TIME_MS = 1317327555_000;

describe("the signature, as Shopify's documentation computes it", () => {
  it('signs the documented text: repeated values joined by commas, pairs sorted, nothing between them', () => {
    expect(appProxySignedText(new URLSearchParams(DOCUMENTED_QUERY))).toBe(
      'extra=1,2logged_in_customer_id=1path_prefix=/apps/awesome_reviewsshop=shop-name.myshopify.comtimestamp=1317327555',
    );
  });

  it.each([
    ['the current page', DOCUMENTED_QUERY],
    ['the earlier edition', EARLIER_DOCUMENTED_QUERY],
  ])("accepts %s's example with its secret, and names the signed shop", async (_name, query) => {
    const verdict = await new AppProxyVerifier(DOCUMENTED_SECRET, () => DOCUMENTED_TIME_MS).verify(new URLSearchParams(query));
    expect(verdict).toEqual({ signed: true, shop: 'shop-name.myshopify.com' });
  });

  it.each([
    ['another secret', 'hush!', DOCUMENTED_QUERY],
    ['a changed value', DOCUMENTED_SECRET, DOCUMENTED_QUERY.replace('extra=2', 'extra=3')],
    ['a parameter added', DOCUMENTED_SECRET, `websiteId=other&${DOCUMENTED_QUERY}`],
    ['a parameter removed', DOCUMENTED_SECRET, DOCUMENTED_QUERY.replace('logged_in_customer_id=1&', '')],
    ['another shop', DOCUMENTED_SECRET, DOCUMENTED_QUERY.replace('shop-name', 'shop-evil')],
    ['the signature in capitals, one digit changed', DOCUMENTED_SECRET, DOCUMENTED_QUERY.replace('4c68c862', '4C68C863')],
    ['a short signature', DOCUMENTED_SECRET, DOCUMENTED_QUERY.replace(/signature=\w+/, 'signature=4c68c862')],
    ['two signatures', DOCUMENTED_SECRET, `${DOCUMENTED_QUERY}&signature=${'0'.repeat(64)}`],
  ])('refuses the example with %s as forged', async (_name, secret, query) => {
    const verdict = await new AppProxyVerifier(secret, () => DOCUMENTED_TIME_MS).verify(new URLSearchParams(query));
    expect(verdict).toMatchObject({ signed: false, reason: 'forged' });
  });

  it('refuses an unsigned query, and a documented one replayed outside the allowed skew', async () => {
    const unsigned = DOCUMENTED_QUERY.replace(/&signature=\w+/, '');
    expect(await new AppProxyVerifier(DOCUMENTED_SECRET, () => DOCUMENTED_TIME_MS).verify(new URLSearchParams(unsigned))).toMatchObject({
      signed: false,
      reason: 'unsigned',
    });
    for (const offset of [SIGNED_TIME_MAX_SKEW_SECONDS + 1, -(SIGNED_TIME_MAX_SKEW_SECONDS + 1), 86_400 * 365 * 10]) {
      const verifier = new AppProxyVerifier(DOCUMENTED_SECRET, () => DOCUMENTED_TIME_MS + offset * 1000);
      const verdict = await verifier.verify(new URLSearchParams(DOCUMENTED_QUERY));
      expect(verdict).toMatchObject({ signed: false, reason: 'stale' });
    }
    const edge = new AppProxyVerifier(DOCUMENTED_SECRET, () => DOCUMENTED_TIME_MS + SIGNED_TIME_MAX_SKEW_SECONDS * 1000);
    expect(await edge.verify(new URLSearchParams(DOCUMENTED_QUERY))).toMatchObject({ signed: true });
  });

  // Repeated values are signed joined by commas: which shop or time would count is not for the relay to guess.
  it.each([
    ['no shop', [['timestamp', '1317327555']], /^Invalid App Proxy request: it names no shop$/],
    [
      'an empty shop',
      [
        ['shop', ''],
        ['timestamp', '1317327555'],
      ],
      /^Invalid App Proxy request: its shop is empty$/,
    ],
    [
      'two shops',
      [
        ['shop', 'a.myshopify.com'],
        ['shop', 'b.myshopify.com'],
        ['timestamp', '1317327555'],
      ],
      /^Invalid App Proxy request: it names 2 shops, and Shopify signs exactly one$/,
    ],
    ['no timestamp', [['shop', 'a.myshopify.com']], /^Stale App Proxy request: signed at no valid time/],
    [
      'a timestamp that is no number',
      [
        ['shop', 'a.myshopify.com'],
        ['timestamp', 'soon'],
      ],
      /^Stale App Proxy request: signed at no valid time/,
    ],
    [
      'two timestamps',
      [
        ['shop', 'a.myshopify.com'],
        ['timestamp', '1317327555'],
        ['timestamp', '1317327555'],
      ],
      /^Invalid App Proxy request: it carries 2 timestamps, and Shopify signs exactly one$/,
    ],
  ] as Array<[string, Array<[string, string]>, RegExp]>)('a signed query with %s is refused, saying so', async (_name, pairs, message) => {
    const verifier = new AppProxyVerifier('s3cret', () => DOCUMENTED_TIME_MS);
    const query = new URLSearchParams(pairs);
    query.append('signature', shopifySignature(pairs, 's3cret'));
    const verdict = await verifier.verify(query);
    expect(verdict).toMatchObject({ signed: false });
    expect(verdict.signed ? '' : verdict.message).toMatch(message);
  });

  it('for any query: signed with the secret it is accepted unless it reads as other parameters too, with one hex digit changed it is refused, and it never throws', async () => {
    const verifier = new AppProxyVerifier('property-secret', () => DOCUMENTED_TIME_MS);
    const pair = fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }));
    await holds(
      fc.asyncProperty(fc.array(pair, { maxLength: 8 }), fc.nat(63), async (extra, position) => {
        const pairs: Array<readonly [string, string]> = [
          ...extra.filter(([key]) => !['signature', 'timestamp', 'shop'].includes(key)),
          ['shop', 'a.myshopify.com'],
          ['timestamp', '1317327555'],
        ];
        const signature = shopifySignature(pairs, 'property-secret');
        const query = new URLSearchParams(pairs as Array<[string, string]>);
        // A text that reads as other parameters too is refused however it is signed (issue 35).
        const ambiguous = pairs.some(([key]) => key.includes('=')) || appProxySignedText(query).split('shop=').length > 2;
        expect(await verifier.verify(new URLSearchParams([...query, ['signature', signature]]))).toEqual(
          ambiguous ? expect.objectContaining({ signed: false, reason: 'forged' }) : { signed: true, shop: 'a.myshopify.com' },
        );
        const digit = signature[position] === '0' ? '1' : '0';
        const changed = `${signature.slice(0, position)}${digit}${signature.slice(position + 1)}`;
        expect(await verifier.verify(new URLSearchParams([...query, ['signature', changed]]))).toMatchObject({ signed: false });
      }),
      200,
    );
    await holds(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
        expect((await verifier.verify(new URLSearchParams(text))).signed).toBe(false);
      }),
      200,
    );
  });
});

describe('the relay behind the App Proxy', () => {
  const SECRET = 'shpss_0123456789abcdef0123456789abcdef';
  const SHOP_DOMAIN = 'shop-a.myshopify.com';
  const NOW_MS = Date.UTC(2026, 10, 26, 12, 0, 0);
  const NOW_S = NOW_MS / 1000;
  // A second Shopify shop, with a website of its own (one the emulator knows).
  const SECOND_SHOP = { id: 'not-relayed', token: 'tokC-SECRET-0000', shop: 'shop-c.myshopify.com' };
  let h: RelayHarness;

  beforeAll(async () => {
    h = await startRelayHarness({
      config: {
        // shop-a is a Shopify shop; shop-b stays an ordinary website, served as before.
        websites: [{ ...SHOP, shop: SHOP_DOMAIN }, OTHER_SHOP, SECOND_SHOP],
        shopifyAppSecret: SECRET,
      },
      relay: { wallClock: () => NOW_MS },
    });
  });
  afterAll(() => h.close());

  const signed = (overrides: Partial<Parameters<typeof signedProxyQuery>[0]> = {}) =>
    signedProxyQuery({ websiteId: SHOP.id, shop: SHOP_DOMAIN, secret: SECRET, timestampSeconds: NOW_S, ...overrides });

  it("serves the shop's website to a request its App Proxy signed, from one upstream request", async () => {
    const first = await h.get(signed());
    const second = await h.get(signed({ timestampSeconds: NOW_S - 30 }));
    for (const answer of [first, second]) {
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ websiteId: SHOP.id, currentVisitors: expect.any(Number) });
    }
    expect(h.upstreamCalls).toHaveLength(1);
  });

  it.each([
    ['unsigned, in the plain form', 401, () => `?websiteId=${SHOP.id}`, /^Unsigned request/],
    ['unsigned, with a shop named', 401, () => `?websiteId=${SHOP.id}&shop=${SHOP_DOMAIN}&timestamp=${NOW_S}`, /^Unsigned request/],
    ['signed with another secret', 401, () => signed({ secret: 'not-the-secret' }), /^Invalid App Proxy signature/],
    [
      'tampered: websiteId changed after signing',
      401,
      () => signed().replace(`websiteId=${SHOP.id}`, `websiteId=${OTHER_SHOP.id}`),
      /^Invalid/,
    ],
    ['tampered: a parameter added', 401, () => `${signed()}&interval=1`, /^Invalid App Proxy signature/],
    ['a forged signature', 401, () => signed().replace(/signature=\w+/, `signature=${'ab'.repeat(32)}`), /^Invalid/],
    ['replayed, signed 91 s ago', 401, () => signed({ timestampSeconds: NOW_S - 91 }), /^Stale App Proxy request/],
    ['signed a day ahead', 401, () => signed({ timestampSeconds: NOW_S + 86_400 }), /^Stale App Proxy request/],
    [
      "signed by another configured shop, asking for this shop's website",
      401,
      () => signed({ shop: SECOND_SHOP.shop }),
      /shop-c\.myshopify\.com may read only its own website/,
    ],
    [
      'signed by a shop the relay does not know',
      404,
      () => signed({ shop: 'shop-z.myshopify.com' }),
      /^No website is configured for the shop shop-z\.myshopify\.com$/,
    ],
    [
      'signed by this shop, asking for an ordinary website',
      401,
      () => signed({ websiteId: OTHER_SHOP.id }),
      /may read only its own website/,
    ],
    ['signed by this shop, asking for an unknown website', 401, () => signed({ websiteId: 'shop-z' }), /may read only its own website/],
  ])('%s → %i with a JSON error, and nothing goes upstream', async (_name, status, query, error) => {
    const before = h.upstreamCalls.length;
    const answer = await h.get(query());
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect((answer.json as { error: string }).error).toMatch(error);
    expect(h.upstreamCalls.length).toBe(before);
  });

  it('still serves an ordinary website without a signature', async () => {
    const answer = await h.get(`?websiteId=${OTHER_SHOP.id}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ websiteId: OTHER_SHOP.id });
  });

  it('never shows the secret in an answer or a log line', () => {
    expect(h.answers.length).toBeGreaterThan(10);
    for (const text of [...h.answers.map(answerText), ...h.logs]) expect(text).not.toContain(SECRET);
  });
});

describe('the config of a Shopify shop', () => {
  const upstream = 'https://analytics.example.com';
  const website = { id: 'shop-a', token: 'tokA-SECRET-7f3a9c', shop: 'shop-a.myshopify.com' };

  it('keeps the secret readable but out of JSON and logs, and reads it from LIVE_VISITORS_SHOPIFY_APP_SECRET', () => {
    const config = parseRelayConfig({ upstream, websites: [website], shopifyAppSecret: 'hush-123' });
    expect(config.shopifyAppSecret).toBe('hush-123');
    expect(config.websites[0]!.shop).toBe('shop-a.myshopify.com');
    expect(JSON.stringify(config)).not.toContain('hush-123');
    expect(parseRelayConfig(config)).toEqual(config);
    const fromEnvironment = relayConfigFromEnvironment({
      LIVE_VISITORS_UPSTREAM: upstream,
      LIVE_VISITORS_WEBSITES: JSON.stringify([website]),
      LIVE_VISITORS_SHOPIFY_APP_SECRET: ' hush-456 ',
    });
    expect(fromEnvironment.shopifyAppSecret).toBe('hush-456');
    expect(parseRelayConfig({ upstream, websites: [{ id: 'x', token: 't' }] }).shopifyAppSecret).toBeNull();
  });

  it.each([
    ['a shop without the secret', { websites: [website] }, /shopifyAppSecret \(or LIVE_VISITORS_SHOPIFY_APP_SECRET\) is required/],
    [
      'a shop not in its myshopify.com form',
      { websites: [{ ...website, shop: 'Shop-A.com' }], shopifyAppSecret: 'x' },
      /websites\[0\]\.shop must be/,
    ],
    [
      'one shop for two websites',
      { websites: [website, { ...website, id: 'shop-b' }], shopifyAppSecret: 'x' },
      /websites\[1\]\.shop "shop-a\.myshopify\.com" is listed twice/,
    ],
    ['an empty secret', { websites: [website], shopifyAppSecret: '' }, /shopifyAppSecret must be the Shopify app's client secret/],
    ['a secret with a space', { websites: [website], shopifyAppSecret: 'hush hush' }, /shopifyAppSecret must be/],
  ])('refuses %s with a clear message that never quotes the secret', (_name, fields, message) => {
    const parse = () => parseRelayConfig({ upstream, ...fields });
    expect(parse).toThrow(RelayConfigError);
    expect(parse).toThrow(message);
    expect(() => parse()).not.toThrow(/hush hush/);
  });

  it('warns when a secret is set but no website names its shop', () => {
    const config = parseRelayConfig({ upstream, websites: [{ id: 'x', token: 't' }], shopifyAppSecret: 'hush' });
    expect(relayConfigWarnings(config).join('\n')).toMatch(/no website names its shop/);
  });
});
