import type { LocaleTexts } from './locale-texts.js';

/** Norwegian Bokmål. */
export default {
  one: '{count} person ser seg rundt i denne butikken akkurat nå',
  other: '{count} personer ser seg rundt i denne butikken akkurat nå',
  about: 'Unike besøkende på hele nettstedet · tidsvindu: 3 minutter · oppdatert kl. {time}',
} satisfies LocaleTexts;
