import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltInTexts } from '../src/locales/catalog.js';
import { formatAbout, formatMessage } from '../src/messages.js';
import { setEnvironment } from '../src/realtime/environment.js';
import { languageLoaded } from './support/languages.js';
import { holds } from './support/properties.js';

/** Templates as a shop may type them: placeholders right, misspelt, doubled, nested, or none. */
const template = (placeholder: string) =>
  fc
    .array(
      fc.oneof(
        fc.string({ maxLength: 8 }),
        fc.constantFrom(placeholder, placeholder, placeholder.toUpperCase(), `${placeholder.slice(0, -1)} }`, '{', '}', '{{', '}}'),
      ),
      { maxLength: 8 },
    )
    .map((pieces) => pieces.join(''));

let english: BuiltInTexts;
let restore: () => void;
beforeAll(async () => {
  english = await languageLoaded('en');
  // The development build's warnings about templates without {count} would fill the output.
  restore = setEnvironment({ warn: () => {} });
});
afterAll(() => restore());

describe('the template formatter, for any template', () => {
  it('never throws, and its sentence never contains {count}: every one is the formatted count', () => {
    holds(
      fc.property(
        fc.nat(),
        fc.constantFrom('en', 'de', 'en-IN', 'ar', 'ja', 'fr-CA'),
        fc.record({ other: fc.option(template('{count}')), one: fc.option(template('{count}')) }, { requiredKeys: [] }),
        fc.boolean(),
        (count, locale, custom, compact) => {
          const { parts } = formatMessage(count, locale, custom, english, compact ? 'compact' : undefined);
          expect(parts.length % 2).toBe(1);
          expect(parts.join('')).not.toContain('{count}');
          const numbers = parts.filter((_, index) => index % 2 === 1);
          expect(new Set(numbers).size).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it('the disclosure never contains {time}, for any template and any instant', () => {
    const instant = fc
      .date({ noInvalidDate: true, min: new Date(0), max: new Date('9999-12-31T23:59:59.999Z') })
      .map((date) => date.toISOString());
    holds(
      fc.property(template('{time}'), instant, fc.constantFrom('en', 'de', 'ar', 'ja'), (text, timestamp, lang) => {
        const about = formatAbout(text, timestamp, lang);
        expect(about).not.toContain('{time}');
        // Every {time} is the time, and nothing else of the template changes.
        expect(about).toBe(text.split('{time}').join(formatAbout('{time}', timestamp, lang)));
      }),
    );
  });
});
