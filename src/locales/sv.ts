import type { LocaleTexts } from './locale-texts.js';

/** Swedish. */
export default {
  one: '{count} person tittar runt i den här butiken just nu',
  other: '{count} personer tittar runt i den här butiken just nu',
  about: 'Unika besökare på hela webbplatsen under de senaste 3 minuterna · uppdaterad kl. {time}',
} satisfies LocaleTexts;
