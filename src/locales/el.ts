import type { LocaleTexts } from './locale-texts.js';

/** Greek. */
export default {
  one: '{count} άτομο περιηγείται τώρα σε αυτό το κατάστημα',
  other: '{count} άτομα περιηγούνται τώρα σε αυτό το κατάστημα',
  about: 'Μοναδικοί επισκέπτες σε ολόκληρο τον ιστότοπο τα τελευταία 3 λεπτά · ενημέρωση: {time}',
} satisfies LocaleTexts;
