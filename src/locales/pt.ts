import type { LocaleTexts } from './locale-texts.js';

/** Portuguese (Brazil). */
export default {
  // `one` is 0 and 1 in Portuguese.
  one: '{count} pessoa está navegando nesta loja agora',
  // `many` is exact millions, where "de" follows "milhão" written as a word; written in digits the plural reads right.
  many: '{count} pessoas estão navegando nesta loja agora',
  other: '{count} pessoas estão navegando nesta loja agora',
  about: 'Visitantes únicos em todo o site nos últimos 3 minutos · última atualização: {time}',
} satisfies LocaleTexts;
