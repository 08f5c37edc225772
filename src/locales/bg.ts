import type { LocaleTexts } from './locale-texts.js';

/** Bulgarian. */
export default {
  one: '{count} човек разглежда този магазин в момента',
  // "души" is the counting form of "people" after a numeral.
  other: '{count} души разглеждат този магазин в момента',
  about: 'Уникални посетители на целия сайт през последните 3 минути · обновено в {time}',
} satisfies LocaleTexts;
