import type { LocaleTexts } from './locale-texts.js';

/** Arabic. */
export default {
  // Six forms for whole numbers. 0: singular noun.
  zero: '{count} شخص يتصفح هذا المتجر الآن',
  // 1: Arabic would say "شخص واحد" without a numeral, but the count must show.
  one: '{count} شخص يتصفح هذا المتجر الآن',
  // 2: the dual.
  two: '{count} شخصان يتصفحان هذا المتجر الآن',
  // 3–10 (and 103–110…): plural.
  few: '{count} أشخاص يتصفحون هذا المتجر الآن',
  // 11–99 (and 111–199…): accusative singular.
  many: '{count} شخصًا يتصفحون هذا المتجر الآن',
  // 100, 101, 102, 200, 1000…: genitive singular.
  other: '{count} شخص يتصفحون هذا المتجر الآن',
  about: 'الزوار الفريدون على الموقع بأكمله خلال آخر 3 دقائق · آخر تحديث {time}',
} satisfies LocaleTexts;
