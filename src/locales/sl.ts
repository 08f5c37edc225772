import type { LocaleTexts } from './locale-texts.js';

/** Slovenian. */
export default {
  // 1, 101, 201, 1001…
  one: '{count} oseba si trenutno ogleduje to trgovino',
  // 2, 102, 202…: the dual.
  two: '{count} osebi si trenutno ogledujeta to trgovino',
  // 3, 4, 103, 104…
  few: '{count} osebe si trenutno ogledujejo to trgovino',
  // 0, 5–100, 105–200…: genitive plural, verb in the singular.
  other: '{count} oseb si trenutno ogleduje to trgovino',
  about: 'Unikatni obiskovalci celotnega spletnega mesta · obdobje: 3 minute · posodobljeno ob {time}',
} satisfies LocaleTexts;
