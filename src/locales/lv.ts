import type { LocaleTexts } from './locale-texts.js';

/** Latvian. */
export default {
  // 0, 10–20, 30, 40…: genitive plural.
  zero: '{count} cilvēku šobrīd apskata šo veikalu',
  // 1, 21, 31… but not 11.
  one: '{count} cilvēks šobrīd apskata šo veikalu',
  other: '{count} cilvēki šobrīd apskata šo veikalu',
  about: 'Unikālie apmeklētāji visā vietnē · laika posms: 3 minūtes · atjaunināts plkst. {time}',
} satisfies LocaleTexts;
