import type { LocaleTexts } from './locale-texts.js';

/** Croatian. */
export default {
  // 1, 21, 31… but not 11.
  one: '{count} osoba upravo pregledava ovu trgovinu',
  // 2–4, 22–24… but not 12–14.
  few: '{count} osobe upravo pregledavaju ovu trgovinu',
  // 0, 5–20, 25–30…: genitive plural, verb in the singular.
  other: '{count} osoba upravo pregledava ovu trgovinu',
  about: 'Jedinstveni posjetitelji na cijeloj web-stranici u posljednje 3 minute · ažurirano u {time}',
} satisfies LocaleTexts;
