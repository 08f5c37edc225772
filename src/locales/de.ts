import type { LocaleTexts } from './locale-texts.js';

/** German. */
export default {
  one: '{count} Person sieht sich gerade in diesem Shop um',
  other: '{count} Personen sehen sich gerade in diesem Shop um',
  about: 'Eindeutige Besucher auf der gesamten Website in den letzten 3 Minuten · aktualisiert um {time}',
} satisfies LocaleTexts;
