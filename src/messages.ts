/**
 * The built-in texts, one table per language. They say what the number is: people active on
 * the whole shop (not on this product) within the last 3 minutes, which "right now" fairly sums up.
 * `{count}` stands for the formatted number.
 */
export type PluralTemplates = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };
/** Templates from the element's attributes; any of them may be unset. */
export type CustomTemplates = Partial<Record<Intl.LDMLPluralRule, string | null | undefined>>;

const MESSAGES: Record<string, PluralTemplates> = {
  en: { one: '{count} person is browsing this shop right now', other: '{count} people are browsing this shop right now' },
  de: { one: '{count} Person sieht sich gerade in diesem Shop um', other: '{count} Personen sehen sich gerade in diesem Shop um' },
  fr: { one: '{count} personne visite cette boutique en ce moment', other: '{count} personnes visitent cette boutique en ce moment' },
  es: { one: '{count} persona está viendo esta tienda ahora mismo', other: '{count} personas están viendo esta tienda ahora mismo' },
  it: {
    one: '{count} persona sta visitando questo negozio in questo momento',
    other: '{count} persone stanno visitando questo negozio in questo momento',
  },
  nl: { one: '{count} persoon bekijkt deze winkel op dit moment', other: '{count} personen bekijken deze winkel op dit moment' },
  pt: { one: '{count} pessoa está vendo esta loja agora', other: '{count} pessoas estão vendo esta loja agora' },
  // Whole numbers in Polish are one, few or many; `other` (fractions) never occurs, so it holds `many`.
  pl: {
    one: '{count} osoba ogląda teraz ten sklep',
    few: '{count} osoby oglądają teraz ten sklep',
    other: '{count} osób ogląda teraz ten sklep',
  },
};

export const DEFAULT_LANGUAGE = 'en';
/** The languages with built-in texts. */
export function supportedLanguages(): string[] {
  return Object.keys(MESSAGES);
}

/** A valid BCP 47 tag for `Intl`, or the default when the page's `lang` is junk. */
export function resolveLocale(lang: string | null | undefined): string {
  try {
    return Intl.getCanonicalLocales(lang?.trim() || DEFAULT_LANGUAGE)[0]!;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

/** The built-in texts for a locale's language (`de-CH` → `de`), or none. */
function ownTemplates(locale: string): PluralTemplates | undefined {
  return MESSAGES[locale.split('-')[0]!.toLowerCase()];
}

/** The built-in texts for a locale's language, English when we have none. */
export function builtInTemplates(locale: string): PluralTemplates {
  return ownTemplates(locale) ?? MESSAGES[DEFAULT_LANGUAGE]!;
}

/** The sentence to show: text around the formatted count (`['', '23', ' people …']`), and its language. */
export interface Sentence {
  parts: string[];
  lang: string;
}

/**
 * The sentence for `count`, split around the formatted number so the element can emphasise it.
 * Custom templates win over built-in ones; a plural form missing from either falls back to its
 * `other` form. Custom texts are in the page's language; built-in ones may be English fallbacks,
 * which need English plurals and `lang="en"` for screen readers.
 */
export function formatMessage(count: number, locale: string, custom: CustomTemplates): Sentence {
  const hasCustom = Object.values(custom).some(Boolean);
  const lang = hasCustom || ownTemplates(locale) ? locale : DEFAULT_LANGUAGE;
  const category = new Intl.PluralRules(lang).select(count);
  const builtIn = builtInTemplates(locale);
  const template = (hasCustom && (custom[category] || custom.other)) || builtIn[category] || builtIn.other;
  const formatted = new Intl.NumberFormat(locale).format(count);
  return { parts: template.split('{count}').flatMap((text, index) => (index ? [formatted, text] : [text])), lang };
}
