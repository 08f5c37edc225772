import type { LocaleTexts } from './locale-texts.js';

/** Russian. */
export default {
  // 1, 21, 31… but not 11.
  one: '{count} человек сейчас просматривает этот магазин',
  // 2–4, 22–24… but not 12–14.
  few: '{count} человека сейчас просматривают этот магазин',
  // 0, 5–20, 25–30…
  many: '{count} человек сейчас просматривают этот магазин',
  // Whole numbers are `one`, `few` or `many`; `other` is for fractions ("2,5 человека").
  other: '{count} человека сейчас просматривают этот магазин',
  about: 'Уникальные посетители всего сайта за последние 3 минуты · обновлено в {time}',
} satisfies LocaleTexts;
