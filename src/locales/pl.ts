import type { LocaleTexts } from './locale-texts.js';

/** Polish. */
export default {
  one: '{count} osoba przegląda teraz ten sklep',
  few: '{count} osoby przeglądają teraz ten sklep',
  many: '{count} osób przegląda teraz ten sklep',
  // Whole numbers are `one`, `few` or `many`; `other` is for fractions ("2,5 osoby").
  other: '{count} osoby przegląda teraz ten sklep',
  about: 'Unikalni odwiedzający całą witrynę · okres: 3 minuty · zaktualizowano o {time}',
} satisfies LocaleTexts;
