import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holds } from '../../test/support/properties.js';
import { Redactor, withCharacterReferencesRead } from '../src/redaction.js';

/**
 * Issue 35 finding 12: a secret echoed back through HTML's character references, each character
 * written as itself, `&#N;`, `&#xH;` (either case, zeros in front, semicolon or not) or a named
 * reference, escaped once or twice over, is still redacted whole.
 */

const NAMED: Readonly<Record<string, string>> = { '/': '&sol;', '+': '&plus;', '=': '&equals;', '.': '&period;', _: '&lowbar;' };
const tokenCharacter = fc.constantFrom(...'abcXYZ0189-._~+/='.split(''));
const anyToken = fc.array(tokenCharacter, { minLength: 8, maxLength: 40 }).map((chars) => chars.join(''));

/** One character as a page could write it; `index` picks the form. */
function written(char: string, index: number, next: string | undefined): string {
  const code = char.codePointAt(0)!;
  // Without its semicolon a reference would run into a following digit: HTML would read them as one.
  const semicolon = next !== undefined && /[\da-fA-F;]/.test(next) ? ';' : index % 2 === 0 ? ';' : '';
  switch (index % 5) {
    case 0:
      return char;
    case 1:
      return `&#${'0'.repeat(index % 3)}${code}${semicolon}`;
    case 2:
      return `&#x${code.toString(16)}${semicolon}`;
    case 3:
      return `&#X${code.toString(16).toUpperCase()};`;
    default:
      return NAMED[char] ?? char;
  }
}

describe('a secret echoed through HTML character references', () => {
  it('is redacted whatever reference each character is written as, escaped once or twice', () => {
    holds(
      fc.property(anyToken, fc.array(fc.nat(99)), fc.boolean(), fc.string({ maxLength: 20 }), (token, forms, twice, around) => {
        let echoed = [...token].map((char, at) => written(char, forms[at] ?? 0, token[at + 1])).join('');
        if (twice) echoed = echoed.replaceAll('&', '&amp;');
        const cleaned = new Redactor([token]).clean(`${around}<b>${echoed}</b>${around}`);
        expect(cleaned.toLowerCase()).not.toContain(token.toLowerCase());
        expect(cleaned).toContain('[token]');
      }),
    );
  });

  it('leaves text that holds no reference as it was, and references that spell no secret as written', () => {
    holds(
      fc.property(fc.string(), (text) => {
        const plain = text.replaceAll('&', '');
        expect(withCharacterReferencesRead(plain)).toBe(plain);
      }),
    );
    expect(withCharacterReferencesRead('5 &lt; 6 &amp;&amp; &eacute; &#0; &#xD800; &#x110000; &unknown; AT&T')).toBe(
      '5 < 6 && &eacute; &#0; &#xD800; &#x110000; &unknown; AT&T',
    );
  });
});
