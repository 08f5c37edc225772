import type { LocaleTexts } from './locale-texts.js';

/** Czech. */
export default {
  one: '{count} člověk si právě prohlíží tento obchod',
  few: '{count} lidé si právě prohlížejí tento obchod',
  // 0 and 5 up. (`many` is for fractions only, which a count never is.)
  other: '{count} lidí si právě prohlíží tento obchod',
  about: 'Unikátní návštěvníci celého webu za poslední 3 minuty · aktualizováno v {time}',
} satisfies LocaleTexts;
