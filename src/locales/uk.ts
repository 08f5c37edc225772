import type { LocaleTexts } from './locale-texts.js';

/** Ukrainian. */
export default {
  // 1, 21, 31… but not 11.
  one: '{count} людина зараз переглядає цей магазин',
  // 2–4, 22–24… but not 12–14.
  few: '{count} людини зараз переглядають цей магазин',
  // 0, 5–20, 25–30…
  many: '{count} людей зараз переглядають цей магазин',
  // Whole numbers are `one`, `few` or `many`; `other` is for fractions ("2,5 людини").
  other: '{count} людини зараз переглядають цей магазин',
  about: 'Унікальні відвідувачі всього сайту за останні 3 хвилини · оновлено о {time}',
} satisfies LocaleTexts;
