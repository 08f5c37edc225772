import type { LocaleTexts } from './locale-texts.js';

/** Slovak. */
export default {
  one: '{count} človek si práve prezerá tento obchod',
  few: '{count} ľudia si práve prezerajú tento obchod',
  // 0 and 5 up. (`many` is for fractions only, which a count never is.)
  other: '{count} ľudí si práve prezerá tento obchod',
  about: 'Unikátni návštevníci celého webu za posledné 3 minúty · aktualizované o {time}',
} satisfies LocaleTexts;
