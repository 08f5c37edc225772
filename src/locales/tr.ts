import type { LocaleTexts } from './locale-texts.js';

/** Turkish. */
export default {
  one: '{count} kişi şu anda bu mağazaya göz atıyor',
  // A noun after a numeral stays singular in Turkish, so both forms read alike.
  other: '{count} kişi şu anda bu mağazaya göz atıyor',
  about: 'Son 3 dakikada tüm sitedeki tekil ziyaretçiler · güncelleme: {time}',
} satisfies LocaleTexts;
