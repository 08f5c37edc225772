import type { LocaleTexts } from './locale-texts.js';

/** Spanish. */
export default {
  one: '{count} persona está visitando esta tienda ahora mismo',
  // `many` is exact millions, where "de" follows "millón" written as a word; written in digits the plural reads right.
  many: '{count} personas están visitando esta tienda ahora mismo',
  other: '{count} personas están visitando esta tienda ahora mismo',
  about: 'Visitantes únicos en todo el sitio en los últimos 3 minutos · última actualización: {time}',
} satisfies LocaleTexts;
