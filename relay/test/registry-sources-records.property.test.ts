// @vitest-environment node
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holds } from '../../test/support/properties.js';
import { joinedSource, publicPart, readPublicSource, readRequestedSource, secretPart } from '../src/registry/registered-source.js';
import { readRegistrationRecord } from '../src/registry/registration-record.js';
import { SOURCE_DEFINITIONS } from '../src/sources/kinds.js';
import { SOURCE_KINDS, type SourceKind } from '../src/sources/source.js';
import { validRegistrationRecord } from './support/valid-registration-record.js';

/**
 * What holds for a stored source's public part whatever a store returns (issue 32 §5, a reader of
 * untrusted data), and for a source's split into what an owner sees and what is sealed.
 */
const validRecord = validRegistrationRecord('site');

// A "!" no site id or base holds, so a secret found among the public values is a leak, not a coincidence.
const aKey = fc.stringMatching(/^[\x21-\x7e]{1,80}$/).map((key) => `!${key}`);
const aSiteId = fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,40}$/);
/** Sources of the kinds whose secrets are text, as an owner would send them. */
const aSource = fc.oneof(
  fc.record({ kind: fc.constant('plausible'), siteId: aSiteId, apiKey: aKey }),
  fc.record({ kind: fc.constant('fathom'), siteId: aSiteId, apiKey: aKey }),
  fc.record({ kind: fc.constant('umami'), websiteId: aSiteId, apiKey: aKey }),
  fc.record({ kind: fc.constant('umami'), websiteId: aSiteId, username: aSiteId, password: aKey }),
  fc.record({
    kind: fc.constant('matomo'),
    base: fc.constant('https://matomo.example'),
    siteId: fc.integer({ min: 1, max: 9999 }),
    tokenAuth: aKey,
  }),
);

describe('a stored source', () => {
  it('reads as null or a source of a known kind with only its public fields, short, whatever the store holds', () => {
    const hostileSource = fc.oneof(
      fc.anything(),
      fc.dictionary(
        fc.oneof(fc.constantFrom('kind', 'base', 'siteId', 'apiKey', 'credentials', 'password', 'websiteId', '__proto__'), fc.string()),
        fc.oneof(fc.constantFrom(...SOURCE_KINDS), fc.string(), fc.integer(), fc.anything()),
      ),
    );
    holds(
      fc.property(hostileSource, (raw) => {
        const record = readRegistrationRecord({ ...validRecord, source: raw }, 'site');
        if (record === null || record.source === null) return;
        const definition = SOURCE_DEFINITIONS[record.source.kind as SourceKind];
        expect(definition).toBeDefined();
        for (const [field, value] of Object.entries(record.source)) {
          expect(definition.secretFields).not.toContain(field);
          expect(['kind', 'base', 'hourlyBudget', ...definition.fields]).toContain(field);
          expect(typeof value === 'number' || (typeof value === 'string' && value.length <= 2_048)).toBe(true);
        }
      }),
    );
  });

  it('splits any source into a public part with no secret and a sealed part that joins back to the same source', () => {
    holds(
      fc.property(aSource, (sent) => {
        const read = readRequestedSource(sent);
        // Every generated source is a valid one: a refusal here is a defect of the reader.
        if ('message' in read) throw new Error(read.message);
        const shown = publicPart(read.source);
        const { apiKey, password, tokenAuth } = sent as { apiKey?: string; password?: string; tokenAuth?: string };
        const secrets = [apiKey, password, tokenAuth].filter((secret): secret is string => secret !== undefined);
        for (const secret of secrets) expect(Object.values(shown)).not.toContain(secret);
        for (const field of ['apiKey', 'password', 'tokenAuth', 'credentials']) expect(shown).not.toHaveProperty(field);
        expect(readPublicSource(JSON.parse(JSON.stringify(shown)))).toEqual(shown);
        const joined = joinedSource(shown, secretPart(read.source));
        expect(joined).not.toBeNull();
        expect(publicPart(joined!)).toEqual(shown);
        expect(secretPart(joined!)).toBe(secretPart(read.source));
      }),
    );
  });
});
