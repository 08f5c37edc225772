// @vitest-environment node
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holds } from '../../test/support/properties.js';
import { readRegistrationRecord, type UnsealedRecord } from '../src/registry/registration-record.js';
import { TokenCipher, UnreadableToken } from '../src/registry/token-cipher.js';

/**
 * The record format of issue 35: a sealed record read back from any store opens only as it was
 * written. Whatever field is changed in the store (where a secret goes, who may read the count, the
 * format itself), the reader refuses it or the cipher does; never the secret for a changed record.
 */
const KEY = `a:${btoa('A'.repeat(32))}`;
const cipher = new TokenCipher([KEY]);
const SECRET = 'tok-SECRET-9876';

const anOrigin = fc.constantFrom('https://shop.example', 'https://www.shop.example', 'http://127.0.0.1:8080', 'https://attacker.example');
const aSource = fc.oneof(
  fc.constant(null),
  fc.record({
    kind: fc.constantFrom('fathom', 'plausible'),
    base: fc.constantFrom('https://api.usefathom.com', 'https://plausible.io', 'http://127.0.0.1:9'),
    siteId: fc.stringMatching(/^[a-z0-9.-]{1,20}$/),
  }),
);
const fields: fc.Arbitrary<UnsealedRecord> = fc.record({
  websiteId: fc.stringMatching(/^[a-z0-9-]{1,30}$/),
  allowOrigins: fc.oneof(fc.constant(null), fc.uniqueArray(anOrigin, { minLength: 1, maxLength: 3 })),
  hourlyBudget: fc.integer({ min: 1, max: 1_000_000 }),
  tokenEnding: fc.stringMatching(/^[A-Za-z0-9]{0,4}$/),
  shop: fc.oneof(fc.constant(null), fc.constantFrom('a-shop.myshopify.com', 'b-shop.myshopify.com')),
  source: aSource,
  savedAtMs: fc.integer({ min: 0, max: 2 ** 45 }),
}) as fc.Arbitrary<UnsealedRecord>;

/** One field of a stored record given another value, as someone with the store but not the keys would. */
const aChange = fc.oneof(
  fc.record({ field: fc.constant('allowOrigins'), value: fc.oneof(fc.constant(null), fc.array(anOrigin, { minLength: 1, maxLength: 2 })) }),
  fc.record({ field: fc.constant('hourlyBudget'), value: fc.integer({ min: 1, max: 1_000_000 }) }),
  fc.record({ field: fc.constant('tokenEnding'), value: fc.stringMatching(/^[A-Za-z0-9]{0,4}$/) }),
  fc.record({ field: fc.constant('shop'), value: fc.oneof(fc.constant(null), fc.constant('c-shop.myshopify.com')) }),
  fc.record({ field: fc.constant('source'), value: aSource }),
  fc.record({ field: fc.constant('savedAtMs'), value: fc.integer({ min: 0, max: 2 ** 45 }) }),
  fc.record({ field: fc.constant('format'), value: fc.constantFrom(undefined, 1, 3, '2') }),
);

/** What a store hands back: JSON text parsed, a source's fields in any order. */
function throughStore(record: object, reversed: boolean): unknown {
  const json = JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
  if (reversed && json.source) json.source = Object.fromEntries(Object.entries(json.source as object).reverse());
  return json;
}

describe('sealed registration records (format 2)', () => {
  it('read back from a store, open to the secret they were sealed with, whatever order a source comes back in', async () => {
    await holds(
      fc.asyncProperty(fields, fc.boolean(), async (unsealed, reversed) => {
        const sealed = await cipher.seal(unsealed, SECRET);
        const read = readRegistrationRecord(throughStore(sealed, reversed), unsealed.websiteId);
        expect(read).not.toBeNull();
        expect(read!.format).toBe(2);
        expect(await cipher.open(read!)).toBe(SECRET);
      }),
      100,
    );
  });

  it('changed in any field, are refused by the reader or do not open; never the secret', async () => {
    await holds(
      fc.asyncProperty(fields, aChange, async (unsealed, { field, value }) => {
        const sealed = await cipher.seal(unsealed, SECRET);
        const stored = throughStore(sealed, false) as Record<string, unknown>;
        if (JSON.stringify(stored[field]) === JSON.stringify(value)) return;
        const changed = { ...stored, [field]: value };
        if (value === undefined) delete changed[field];
        const read = readRegistrationRecord(changed, unsealed.websiteId);
        if (read === null) return;
        await expect(cipher.open(read)).rejects.toBeInstanceOf(UnreadableToken);
      }),
      300,
    );
  });

  it('of the older format (no format field, the website id as additional data) still read and open', async () => {
    await holds(
      fc.asyncProperty(fields, async (unsealed) => {
        const older = { ...unsealed, token: await cipher.sealText(unsealed.websiteId, SECRET) };
        const read = readRegistrationRecord(throughStore(older, false), unsealed.websiteId);
        expect(read?.format).toBe(1);
        expect(await cipher.open(read!)).toBe(SECRET);
        // A record sealed whole does not open when it is passed off as the older format.
        const whole = (await cipher.seal(unsealed, SECRET)) as unknown as Record<string, unknown>;
        const { format: _, ...downgraded } = whole;
        await expect(cipher.open(readRegistrationRecord(downgraded, unsealed.websiteId)!)).rejects.toBeInstanceOf(UnreadableToken);
      }),
      100,
    );
  });
});
