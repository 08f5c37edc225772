import type { LocaleTexts } from './locale-texts.js';

/** Lithuanian. */
export default {
  // 1, 21, 31… but not 11.
  one: '{count} žmogus dabar naršo šioje parduotuvėje',
  // 2–9, 22–29… but not 12–19.
  few: '{count} žmonės dabar naršo šioje parduotuvėje',
  // 0, 10–20, 30, 40…: genitive plural. (`many` is for fractions only, which a count never is.)
  other: '{count} žmonių dabar naršo šioje parduotuvėje',
  about: 'Unikalūs lankytojai visoje svetainėje · laikotarpis: 3 minutės · atnaujinta {time}',
} satisfies LocaleTexts;
