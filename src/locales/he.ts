import type { LocaleTexts } from './locale-texts.js';

/** Hebrew. */
export default {
  one: '{count} אדם גולש בחנות הזו כרגע',
  // 2: "אנשים" has no dual, so it reads like `other`.
  two: '{count} אנשים גולשים בחנות הזו כרגע',
  other: '{count} אנשים גולשים בחנות הזו כרגע',
  about: 'מבקרים ייחודיים בכל האתר · חלון זמן: 3 דקות · עודכן ב-{time}',
} satisfies LocaleTexts;
