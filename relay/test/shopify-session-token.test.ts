import { createHmac } from 'node:crypto';
import { getJwt } from '@shopify/shopify-api/test-helpers';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { holds } from '../../test/support/properties.js';
import { AppSecret } from '../src/shopify-app/app-secret.js';
import { SESSION_TOKEN_LEEWAY_SECONDS, SessionTokenVerifier } from '../src/shopify-app/session-token.js';
import { CLIENT_ID, CLIENT_SECRET, oracleAcceptsSessionToken, SHOP } from './support/shopify-oracle.js';

/**
 * The embedded page's session tokens, held to Shopify's official library: tokens signed by its
 * test helper (getJwt, HS256 with jose) and judged by its decodeSessionToken, with `Date` faked
 * to the verifier's wall clock so both judge the same instant.
 */
const NOW_MS = Date.UTC(2026, 10, 27, 10, 0, 0, 250);
const NOW_S = Math.floor(NOW_MS / 1000);
const STORE = SHOP.replace(/\.myshopify\.com$/, '');
const verifier = new SessionTokenVerifier(CLIENT_ID, new AppSecret(CLIENT_SECRET), () => NOW_MS);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: NOW_MS });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A token as App Bridge's shopify.idToken() gives one: a minute's life, signed by the library's helper. */
async function sessionToken(overrides: Record<string, unknown> = {}, secret = CLIENT_SECRET): Promise<string> {
  const claims = { iss: `https://${SHOP}/admin`, dest: `https://${SHOP}`, exp: NOW_S + 50, nbf: NOW_S - 10, iat: NOW_S - 10, ...overrides };
  return (await getJwt(STORE, CLIENT_ID, secret, claims)).token;
}

/** A JWT signed HS256 by hand, for headers and payloads the library's helper cannot make. */
function handSigned(header: unknown, payload: unknown, secret = CLIENT_SECRET): string {
  const part = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  const signed = `${part(header)}.${part(payload)}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
}

const verdictOf = (token: string) => verifier.verify(`Bearer ${token}`);

describe('session tokens, against @shopify/shopify-api', () => {
  it('accepts what the library signs and accepts, and names the shop in dest', async () => {
    const token = await sessionToken();
    expect(await oracleAcceptsSessionToken(token)).toBe(true);
    // A write spends the jti until the relay stops accepting the token: exp plus the leeway.
    const acceptedUntilMs = (NOW_S + 50 + SESSION_TOKEN_LEEWAY_SECONDS) * 1000;
    expect(await verdictOf(token)).toEqual({ valid: true, shop: SHOP, tokenId: '1234567890', acceptedUntilMs });
    // The library's own helper writes iss without the scheme: the same shop, accepted.
    const helperDefault = (await getJwt(STORE, CLIENT_ID, CLIENT_SECRET, { exp: NOW_S + 50, nbf: NOW_S - 10 })).token;
    expect(await verdictOf(helperDefault)).toEqual({ valid: true, shop: SHOP, tokenId: '1234567890', acceptedUntilMs });
  });

  it.each([
    ['expired beyond the leeway', { exp: NOW_S - SESSION_TOKEN_LEEWAY_SECONDS }, false, /^Expired session token/],
    ['expired within the leeway', { exp: NOW_S - SESSION_TOKEN_LEEWAY_SECONDS + 1 }, true, null],
    ['not valid yet beyond the leeway', { nbf: NOW_S + SESSION_TOKEN_LEEWAY_SECONDS + 1 }, false, /^Session token not valid yet/],
    ['not valid yet within the leeway', { nbf: NOW_S + SESSION_TOKEN_LEEWAY_SECONDS }, true, null],
    ["for another app's client id", { aud: 'another-app' }, false, /another app/],
    ['with no audience', { aud: undefined }, false, /another app/],
    ['with an iat that is no number', { iat: 'yesterday' }, false, /must be numbers/],
  ] as const)('a token %s: the library says %s, and so does the relay', async (_name, overrides, accepted, message) => {
    const token = await sessionToken(overrides);
    expect(await oracleAcceptsSessionToken(token)).toBe(accepted);
    const verdict = await verdictOf(token);
    expect(verdict.valid).toBe(accepted);
    if (!verdict.valid && message) expect(verdict.message).toMatch(message);
  });

  it('refuses a token signed with another secret, or changed after signing, as the library does', async () => {
    const forged = await sessionToken({}, 'another-secret');
    const [header, payload, signature] = (await sessionToken()).split('.') as [string, string, string];
    const otherShop = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), dest: 'https://evil.myshopify.com' }),
    ).toString('base64url');
    for (const token of [forged, `${header}.${otherShop}.${signature}`, `${header}.${payload}.${signature.slice(0, -2)}`]) {
      expect(await oracleAcceptsSessionToken(token)).toBe(false);
      expect(await verdictOf(token)).toMatchObject({ valid: false, message: expect.stringMatching(/^Invalid session token: not signed/) });
    }
  });

  it.each([
    ['alg none', { alg: 'none' }, ''],
    ['alg HS512', { alg: 'HS512' }, null],
    ['a critical extension', { alg: 'HS256', crit: ['b64'], b64: false }, null],
  ])('refuses a header with %s, as the library does', async (_name, header, signatureOverride) => {
    const claims = { dest: `https://${SHOP}`, aud: CLIENT_ID, exp: NOW_S + 50, nbf: NOW_S - 10 };
    const signed = handSigned(header, claims);
    const token = signatureOverride === null ? signed : `${signed.split('.').slice(0, 2).join('.')}.${signatureOverride}`;
    expect(await oracleAcceptsSessionToken(token)).toBe(false);
    expect((await verdictOf(token)).valid).toBe(false);
  });

  it.each([
    ['a dest that is no shop', { dest: 'https://example.com' }, /dest names no shop/],
    ['a dest with a path', { dest: `https://${SHOP}/admin` }, /dest names no shop/],
    ['no dest', { dest: undefined }, /dest names no shop/],
    ['an iss of another shop', { iss: 'https://evil.myshopify.com/admin' }, /iss and dest name different shops/],
  ])('refuses a signed token with %s: the shop must be unambiguous', async (_name, overrides, message) => {
    expect(await verdictOf(await sessionToken(overrides))).toMatchObject({ valid: false, message: expect.stringMatching(message) });
  });

  it.each([
    ['no header', null, /^No session token/],
    ['an empty header', '', /^No session token/],
    ['Basic credentials', 'Basic abc', /^No session token/],
    ['Bearer and nothing', 'Bearer ', /^No session token/],
    ['two parts', 'Bearer a.b', /not a JWT/],
    ['5,000 characters', `Bearer ${'a'.repeat(5000)}.b.c`, /not a JWT/],
    ['three empty parts', 'Bearer ..', /HS256/],
    ['a signed array', `Bearer ${handSigned({ alg: 'HS256' }, '[1]')}`, /payload is not a JSON object/],
    ['a signed non-JSON payload', `Bearer ${handSigned({ alg: 'HS256' }, 'not json')}`, /payload is not a JSON object/],
  ])('refuses %s with a message saying why', async (_name, authorization, message) => {
    expect(await verifier.verify(authorization)).toMatchObject({ valid: false, message: expect.stringMatching(message) });
  });

  it('for any exp and nbf around now: the relay accepts exactly what the library accepts', async () => {
    await holds(
      fc.asyncProperty(fc.integer({ min: -25, max: 25 }), fc.integer({ min: -25, max: 25 }), async (expOffset, nbfOffset) => {
        const token = await sessionToken({ exp: NOW_S + expOffset, nbf: NOW_S + nbfOffset });
        expect((await verdictOf(token)).valid).toBe(await oracleAcceptsSessionToken(token));
      }),
      400,
    );
  });

  it('for any audience and secret: the relay accepts exactly what the library accepts', async () => {
    await holds(
      fc.asyncProperty(
        fc.oneof(fc.constant(CLIENT_ID), fc.string({ maxLength: 40 })),
        fc.constantFrom(CLIENT_SECRET, `${CLIENT_SECRET}x`, 'x'),
        async (aud, secret) => {
          const token = await sessionToken({ aud }, secret);
          expect((await verdictOf(token)).valid).toBe(await oracleAcceptsSessionToken(token));
        },
      ),
      100,
    );
  });

  it('for any bytes after Bearer: never throws, never accepts', async () => {
    await holds(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (text) => {
        expect((await verifier.verify(`Bearer ${text}`)).valid).toBe(false);
      }),
      300,
    );
  });
});
