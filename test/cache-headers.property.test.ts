import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerAge, freshFor } from '../src/contract/cache-headers.js';
import rules from '../src/contract/rules.json' with { type: 'json' };
import { headerValue, holds, numberLikeText } from './support/properties.js';

describe('Age and Cache-Control, for any value a relay or CDN sends', () => {
  it('an Age is never negative and never beyond the trust cap: 0 to the cap in whole seconds, or "too old"', () => {
    holds(
      fc.property(fc.option(fc.oneof(headerValue, numberLikeText)), (age) => {
        const ms = answerAge(age);
        if (ms === null) {
          expect(age?.trim()).toMatch(/^\d+$/);
          expect(Number(age) * 1000).toBeGreaterThan(rules.dayCeilingMs);
        } else {
          expect(Number.isInteger(ms / 1000) && ms >= 0 && ms <= rules.dayCeilingMs).toBe(true);
        }
      }),
    );
  });

  it('an Age over the cap is "too old", never new, however many digits it has', () => {
    holds(
      fc.property(fc.bigInt({ min: BigInt(rules.dayCeilingMs / 1000 + 1), max: 10n ** 400n }), (seconds) => {
        expect(answerAge(String(seconds))).toBeNull();
      }),
    );
  });

  it('a max-age is null or a whole number of seconds from 0 to the trust cap', () => {
    const cacheControl = fc.oneof(
      headerValue,
      fc
        .tuple(fc.constantFrom('', 'public, ', 'no-cache,', 's-maxage=9, '), numberLikeText)
        .map(([before, seconds]) => `${before}max-age=${seconds}`),
    );
    holds(
      fc.property(fc.option(cacheControl), (value) => {
        const ms = freshFor(value);
        if (ms !== null) expect(Number.isInteger(ms / 1000) && ms >= 0 && ms <= rules.dayCeilingMs).toBe(true);
      }),
    );
  });
});
