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
        const first = age?.split(',')[0]?.trim();
        if (ms === null) {
          // Too old, or no age a cache can trust (RFC 9111 §5.1: the first member, a non-negative integer).
          if (first && /^\d+$/.test(first)) expect(Number(first) * 1000).toBeGreaterThan(rules.dayCeilingMs);
        } else {
          // Only the first member of a list counts, and only as the plain number it is: never younger than it says.
          if (first) expect(ms).toBe(Number(first) * 1000);
          expect(Number.isInteger(ms / 1000) && ms >= 0 && ms <= rules.dayCeilingMs).toBe(true);
        }
      }),
    );
  });

  it.each<[string | null, number | null, string]>([
    ['90000, 90000', null, 'two header lines of a two-day age: the first member counts, and is too old'],
    ['90000,5', null, 'a list: the first member counts, not the last'],
    ['5, 90000', 5_000, 'a list whose first member is young'],
    ['+90000', null, 'a signed number is no delta-seconds: no trusted age, never 0'],
    ['-5', null, 'a negative age is no delta-seconds'],
    ['1e3', null, 'an exponent is no delta-seconds'],
    ['junk', null, 'junk is no age'],
    [' 42 ', 42_000, 'white space around a plain number is no harm'],
    ['', 0, 'an empty Age is none'],
    [null, 0, 'no Age: as fresh as the answer says'],
  ])('Age %j is read as %j ms (%s)', (age, ms) => {
    expect(answerAge(age)).toBe(ms);
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
