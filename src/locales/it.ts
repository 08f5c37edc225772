import type { LocaleTexts } from './locale-texts.js';

/** Italian. */
export default {
  one: '{count} persona sta visitando questo negozio in questo momento',
  // `many` is exact millions, where "di" follows "milione" written as a word; written in digits the plural reads right.
  many: '{count} persone stanno visitando questo negozio in questo momento',
  other: '{count} persone stanno visitando questo negozio in questo momento',
  about: 'Visitatori unici sull’intero sito negli ultimi 3 minuti · ultimo aggiornamento: {time}',
} satisfies LocaleTexts;
