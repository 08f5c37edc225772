import type { LocaleTexts } from './locale-texts.js';

/** Finnish. */
export default {
  one: '{count} henkilö selaa tätä kauppaa juuri nyt',
  // After a numeral: partitive singular, verb in the singular.
  other: '{count} henkilöä selaa tätä kauppaa juuri nyt',
  about: 'Yksilölliset kävijät koko sivustolla viimeisten 3 minuutin aikana · päivitetty klo {time}',
} satisfies LocaleTexts;
