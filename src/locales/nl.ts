import type { LocaleTexts } from './locale-texts.js';

/** Dutch. */
export default {
  one: '{count} persoon kijkt nu rond in deze winkel',
  other: '{count} mensen kijken nu rond in deze winkel',
  about: 'Unieke bezoekers op de hele website in de afgelopen 3 minuten · bijgewerkt om {time}',
} satisfies LocaleTexts;
