import type { LocaleTexts } from './locale-texts.js';

/** Romanian. */
export default {
  one: '{count} persoană vizitează acum acest magazin',
  // 0, 2–19 and any number ending in 01–19 (101, 1 005…).
  few: '{count} persoane vizitează acum acest magazin',
  // 20 and up, except those ending in 01–19: "de" before the noun.
  other: '{count} de persoane vizitează acum acest magazin',
  about: 'Vizitatori unici pe întregul site în ultimele 3 minute · actualizat la {time}',
} satisfies LocaleTexts;
