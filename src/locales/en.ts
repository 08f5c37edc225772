import type { LocaleTexts } from './locale-texts.js';

/** English: in every build, and the texts of any language without its own. */
export default {
  one: '{count} person is browsing this shop right now',
  other: '{count} people are browsing this shop right now',
  about: 'Unique visitors on this whole site in the last 3 minutes · updated {time}',
} satisfies LocaleTexts;
