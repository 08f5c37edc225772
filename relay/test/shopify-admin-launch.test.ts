import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { holds } from '../../test/support/properties.js';
import { AppSecret } from '../src/shopify-app/app-secret.js';
import { verifyLaunchQuery } from '../src/shopify-app/launch-query.js';
import { CLIENT_SECRET, oracleAcceptsLaunch, SHOP } from './support/shopify-oracle.js';

/**
 * The admin page's launch URL, as Shopify's admin opens it, held to @shopify/shopify-api's
 * utils.validateHmac (the admin signator). The library has no signer for it, so the query is
 * signed here with Node's own HMAC as Shopify documents it, and the library judges it too.
 */
const NOW_MS = Date.UTC(2026, 10, 27, 10, 0, 0);
const NOW_S = NOW_MS / 1000;
const secret = new AppSecret(CLIENT_SECRET);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: NOW_MS });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Every parameter but hmac, sorted by name, percent-encoded (a space as %20), joined with &, HMAC-SHA256 in hex. */
function signedLaunch(parameters: Record<string, string>, key = CLIENT_SECRET): URLSearchParams {
  const sorted = Object.entries(parameters).sort(([a], [b]) => (a < b ? -1 : 1));
  const message = new URLSearchParams(sorted).toString().replaceAll('+', '%20');
  const hmac = createHmac('sha256', key).update(message).digest('hex');
  return new URLSearchParams({ ...parameters, hmac });
}

const LAUNCH = {
  embedded: '1',
  host: Buffer.from(`admin.shopify.com/store/${SHOP.split('.')[0]}`).toString('base64url'),
  id_token: 'eyJhbGciOiJIUzI1NiJ9.eyJkZXN0IjoiaHR0cHM6Ly9kZW1vLXNob3AubXlzaG9waWZ5LmNvbSJ9.c2lnbmF0dXJl',
  locale: 'en-GB',
  session: 'b5d4a8a1f1c39fb0b5b0d0e8e4c7a6e3f2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7',
  shop: SHOP,
  timestamp: String(NOW_S - 2),
};

describe("the admin's launch query, against @shopify/shopify-api", () => {
  it('accepts what Shopify signs and the library accepts, and names the shop', async () => {
    const query = signedLaunch(LAUNCH);
    expect(await oracleAcceptsLaunch(query)).toBe(true);
    expect(await verifyLaunchQuery(query, secret, NOW_MS)).toEqual({ signed: true, shop: SHOP });
  });

  it.each([
    ['no hmac', () => new URLSearchParams(LAUNCH), /^Unsigned request/],
    ['another secret', () => signedLaunch(LAUNCH, 'another-secret'), /not signed with this app's client secret/],
    [
      'a shop changed after signing',
      () => {
        const query = signedLaunch(LAUNCH);
        query.set('shop', 'evil.myshopify.com');
        return query;
      },
      /not signed with this app's client secret/,
    ],
    ['a timestamp 91 s old', () => signedLaunch({ ...LAUNCH, timestamp: String(NOW_S - 91) }), /^Stale admin request/],
    ['a timestamp 91 s ahead', () => signedLaunch({ ...LAUNCH, timestamp: String(NOW_S + 91) }), /^Stale admin request/],
  ])('refuses a launch with %s, as the library does', async (_name, query, message) => {
    expect(await oracleAcceptsLaunch(query())).toBe(false);
    expect(await verifyLaunchQuery(query(), secret, NOW_MS)).toMatchObject({ signed: false, message: expect.stringMatching(message) });
  });

  // Stricter than the library: it lets a timestamp that is no number through (|now - NaN| > 90 is false).
  it.each([
    ['a timestamp that is no number', () => signedLaunch({ ...LAUNCH, timestamp: 'now' }), /^Stale admin request/],
    [
      'no timestamp',
      () => signedLaunch(Object.fromEntries(Object.entries(LAUNCH).filter(([key]) => key !== 'timestamp'))),
      /^Stale admin request/,
    ],
    ['a shop that is not a shop domain', () => signedLaunch({ ...LAUNCH, shop: 'shop.example' }), /shop is not a shop domain/],
    ['no shop', () => signedLaunch({ ...LAUNCH, shop: '' }), /shop is not a shop domain/],
    [
      'a repeated shop',
      () => {
        const query = signedLaunch(LAUNCH);
        query.append('shop', 'evil.myshopify.com');
        return query;
      },
      /more than once/,
    ],
    ['an hmac that is not hex', () => new URLSearchParams({ ...LAUNCH, hmac: 'z'.repeat(64) }), /expected one hex HMAC-SHA256/],
  ])('refuses a signed launch with %s, saying why', async (_name, query, message) => {
    expect(await verifyLaunchQuery(query(), secret, NOW_MS)).toMatchObject({ signed: false, message: expect.stringMatching(message) });
  });

  it('for any extra parameters: the relay accepts exactly what the library accepts, and never throws', async () => {
    const name = fc.stringMatching(/^[a-z_]{1,12}$/).filter((key) => !(key in LAUNCH) && key !== 'hmac' && key !== 'signature');
    await holds(
      fc.asyncProperty(fc.dictionary(name, fc.string({ maxLength: 20 }), { maxKeys: 4 }), fc.boolean(), async (extra, tamper) => {
        const query = signedLaunch({ ...LAUNCH, ...extra });
        if (tamper) query.set('locale', 'de');
        const ours = await verifyLaunchQuery(query, secret, NOW_MS);
        expect(ours.signed).toBe(await oracleAcceptsLaunch(query));
      }),
      200,
    );
  });
});
