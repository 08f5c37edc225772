import type { LocaleTexts } from './locale-texts.js';

/** Danish. */
export default {
  one: '{count} person kigger rundt i denne butik lige nu',
  other: '{count} personer kigger rundt i denne butik lige nu',
  about: 'Unikke besøgende på hele webstedet inden for de seneste 3 minutter · opdateret kl. {time}',
} satisfies LocaleTexts;
