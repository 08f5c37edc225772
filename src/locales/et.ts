import type { LocaleTexts } from './locale-texts.js';

/** Estonian. */
export default {
  one: '{count} inimene sirvib praegu seda poodi',
  // After a numeral: partitive singular.
  other: '{count} inimest sirvivad praegu seda poodi',
  about: 'Unikaalsed külastajad kogu saidil · ajavahemik: 3 minutit · uuendatud kell {time}',
} satisfies LocaleTexts;
