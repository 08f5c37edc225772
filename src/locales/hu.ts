import type { LocaleTexts } from './locale-texts.js';

/** Hungarian. */
export default {
  one: '{count} ember nézelődik most ebben a boltban',
  // A noun after a numeral stays singular in Hungarian, so both forms read alike.
  other: '{count} ember nézelődik most ebben a boltban',
  about: 'Egyedi látogatók a teljes webhelyen az elmúlt 3 percben · frissítve: {time}',
} satisfies LocaleTexts;
