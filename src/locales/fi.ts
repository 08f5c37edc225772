import type { LocaleTexts } from './locale-texts.js';

/** Finnish. */
export default {
  one: '{count} henkilö selaa tätä kauppaa juuri nyt',
  // After a numeral: partitive singular, verb in the singular.
  other: '{count} henkilöä selaa tätä kauppaa juuri nyt',
  about: 'Yksilölliset kävijät koko sivustolla · aikaikkuna: 3 minuuttia · päivitetty klo {time}',
} satisfies LocaleTexts;
