// @vitest-environment node
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holds } from '../../test/support/properties.js';
import { parseRelayConfig } from '../src/config.js';
import { MAX_ALLOWED_ORIGINS, MAX_WEBSITE_HOURLY_BUDGET, readRegistrationRecord } from '../src/registry/registration-record.js';
import { TokenCipher, UnreadableToken } from '../src/registry/token-cipher.js';
import { validRegistrationRecord } from './support/valid-registration-record.js';

/**
 * What holds for any record a store could return (another program's key, a record cut short, one
 * copied under another id), and for the cipher whatever it is given: issue 31's "a record that does
 * not decrypt… never a crash, never another website's data".
 */
const KEY_A = `a:${btoa('A'.repeat(32))}`;
const KEY_B = `b:${btoa('B'.repeat(32))}`;
const aToken = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,200}=*$/).filter((token) => token.length <= 256);
const anId = fc.stringMatching(/^[\x21-\x7e]{1,64}$/);

describe('readRegistrationRecord', () => {
  it('returns null or a record of exactly that website with every field in bounds, for any input', () => {
    const hostile = fc.oneof(
      fc.anything(),
      fc.record({
        websiteId: fc.oneof(fc.constant('site'), fc.string()),
        allowOrigins: fc.oneof(fc.constant(null), fc.array(fc.oneof(fc.webUrl(), fc.string(), fc.constant('https://a.example')))),
        hourlyBudget: fc.oneof(fc.integer(), fc.double(), fc.string()),
        tokenEnding: fc.oneof(fc.string(), fc.integer()),
        shop: fc.oneof(fc.constant(null), fc.string(), fc.constant('a-shop.myshopify.com')),
        token: fc.oneof(fc.anything(), fc.record({ keyId: fc.string(), iv: fc.base64String(), sealed: fc.base64String() })),
        savedAtMs: fc.oneof(fc.integer(), fc.double()),
      }),
    );
    holds(
      fc.property(hostile, (raw) => {
        const record = readRegistrationRecord(raw, 'site');
        if (record === null) return;
        expect(record.websiteId).toBe('site');
        expect(
          Number.isSafeInteger(record.hourlyBudget) && record.hourlyBudget >= 1 && record.hourlyBudget <= MAX_WEBSITE_HOURLY_BUDGET,
        ).toBe(true);
        expect(record.tokenEnding.length).toBeLessThanOrEqual(4);
        if (record.allowOrigins !== null) {
          expect(record.allowOrigins.length).toBeLessThanOrEqual(MAX_ALLOWED_ORIGINS);
          for (const origin of record.allowOrigins) expect(new URL(origin).origin).toBe(origin);
        }
        expect(record.token.iv).toHaveLength(16);
      }),
    );
  });

  it('refuses a valid record read under another id', () => {
    expect(readRegistrationRecord(validRegistrationRecord('site'), 'site')).not.toBeNull();
    holds(
      fc.property(
        anId.filter((id) => id !== 'site'),
        (other) => readRegistrationRecord(validRegistrationRecord('site'), other) === null,
      ),
    );
  });
});

describe('TokenCipher', () => {
  const config = parseRelayConfig({
    upstream: 'https://a.example',
    selfServe: true,
    encryptionKeys: [KEY_A, KEY_B],
    registrationsMayBeLost: true,
  });

  it('gives back any token for its own website, with a fresh IV each time, and never for another website', async () => {
    const cipher = new TokenCipher(config.encryptionKeys);
    await holds(
      fc.asyncProperty(anId, anId, aToken, async (websiteId, other, token) => {
        const first = await cipher.sealText(websiteId, token);
        const second = await cipher.sealText(websiteId, token);
        expect(first.keyId).toBe('a');
        expect(first.iv).not.toBe(second.iv);
        expect(await cipher.openText(websiteId, first)).toBe(token);
        if (other !== websiteId) await expect(cipher.openText(other, first)).rejects.toBeInstanceOf(UnreadableToken);
      }),
      200,
    );
  });

  it('refuses a record that was changed anywhere, or whose key is gone, with UnreadableToken and none of its bytes', async () => {
    const cipher = new TokenCipher(config.encryptionKeys);
    const sealed = await cipher.sealText('site', 'tok-SECRET-1234');
    await holds(
      fc.asyncProperty(
        fc.constantFrom('iv', 'sealed') as fc.Arbitrary<'iv' | 'sealed'>,
        fc.nat(),
        fc.base64String({ minLength: 1, maxLength: 4 }),
        async (field, at, text) => {
          const value = sealed[field];
          const index = at % value.length;
          const changed = `${value.slice(0, index)}${text}${value.slice(index + text.length)}`;
          // Base64 can spell the same bytes twice (the unused bits of its last character): only a change of the bytes counts.
          if (changed === value || decodesTo(changed) === decodesTo(value)) return;
          const error = await cipher.openText('site', { ...sealed, [field]: changed }).catch((thrown: unknown) => thrown);
          expect(error).toBeInstanceOf(UnreadableToken);
          expect((error as Error).message).not.toContain(value);
        },
      ),
      300,
    );
    const withoutA = new TokenCipher([KEY_B]);
    await expect(withoutA.openText('site', sealed)).rejects.toThrow(/key "a" is not in encryptionKeys/);
    // The second key still decrypts what the first one did not write, and the first encrypts.
    const underB = await withoutA.sealText('site', 'tok-SECRET-1234');
    expect(await cipher.openText('site', underB)).toBe('tok-SECRET-1234');
  });
});

function decodesTo(text: string): string | null {
  try {
    return atob(text);
  } catch {
    return null;
  }
}
