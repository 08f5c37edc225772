import type { LocaleTexts } from './locale-texts.js';

/** French. */
export default {
  // `one` is 0 and 1 in French.
  one: '{count} personne visite cette boutique en ce moment',
  // `many` is exact millions (1 000 000), where "de" follows "million" written as a word; written in digits the plural reads right.
  many: '{count} personnes visitent cette boutique en ce moment',
  other: '{count} personnes visitent cette boutique en ce moment',
  about: 'Visiteurs uniques de l’ensemble du site, sur une fenêtre de 3 minutes · mis à jour à {time}',
} satisfies LocaleTexts;
