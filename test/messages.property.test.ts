import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAbout } from '../src/about.js';
import type { BuiltInTexts } from '../src/locales/catalog.js';
import { formatMessage } from '../src/messages.js';
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
          const { texts, number } = formatMessage(count, locale, custom, english, compact ? 'compact' : undefined);
          expect(texts.length).toBeGreaterThanOrEqual(1);
          expect(texts.join(number)).not.toContain('{count}');
          expect(number).not.toContain('{count}');
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
        const about = formatAbout({ template: text, builtIn: false, timestamp, windowMinutes: 3, lang });
        expect(about).not.toContain('{time}');
        // Every {time} is the time, and nothing else of the template changes.
        const time = formatAbout({ template: '{time}', builtIn: false, timestamp, windowMinutes: 3, lang });
        expect(about).toBe(text.split('{time}').join(time));
      }),
    );
  });
});
