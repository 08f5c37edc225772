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
  it: { one: '{count} persona sta visitando questo negozio in questo momento', other: '{count} persone stanno visitando questo negozio in questo momento' },
  nl: { one: '{count} persoon bekijkt deze winkel op dit moment', other: '{count} personen bekijken deze winkel op dit moment' },
  pt: { one: '{count} pessoa está vendo esta loja agora', other: '{count} pessoas estão vendo esta loja agora' },
  // Whole numbers in Polish are one, few or many; `other` (fractions) never occurs, so it holds `many`.
  pl: { one: '{count} osoba ogląda teraz ten sklep', few: '{count} osoby oglądają teraz ten sklep', other: '{count} osób ogląda teraz ten sklep' },
};

export const DEFAULT_LANGUAGE = 'en';
/** The languages with built-in texts. */
export function supportedLanguages(): string[] {
  return Object.keys(MESSAGES);
}

/** A valid BCP 47 tag for `Intl`, or the default when the page's `lang` is junk. */
export function resolveLocale(lang: string | null | undefined): string {
  try {
    return Intl.getCanonicalLocales(lang?.trim() || DEFAULT_LANGUAGE)[0] ?? DEFAULT_LANGUAGE;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

/** The locale whose grammar the built-in texts follow: the page's, or English when we have no texts for it. */
function textLocale(locale: string): string {
  return locale.split('-')[0]!.toLowerCase() in MESSAGES ? locale : DEFAULT_LANGUAGE;
}

/**
 * The language the sentence is in: custom texts are written in the page's language; built-in
 * ones may be English fallbacks, which need English plurals and `lang="en"` for screen readers.
 */
export function textLanguage(locale: string, custom: CustomTemplates): string {
  return Object.values(custom).some(Boolean) ? locale : textLocale(locale);
}

/** The built-in texts for a locale's language (`de-CH` → `de`), English when we have none. */
export function builtInTemplates(locale: string): PluralTemplates {
  return MESSAGES[textLocale(locale).split('-')[0]!.toLowerCase()]!;
}

/**
 * The sentence for `count`, split around the formatted number so the element can emphasise it:
 * `['', '23', ' people are browsing…']`. Custom templates win over built-in ones; a plural form
 * missing from either falls back to its `other` form.
 */
export function formatMessage(count: number, locale: string, custom: CustomTemplates): string[] {
  const hasCustom = Object.values(custom).some(Boolean);
  const category = new Intl.PluralRules(textLanguage(locale, custom)).select(count);
  const builtIn = builtInTemplates(locale);
  const template = (hasCustom && (custom[category] || custom.other)) || builtIn[category] || builtIn.other;
  const formatted = new Intl.NumberFormat(locale).format(count);
  return template.split('{count}').flatMap((text, index) => (index === 0 ? [text] : [formatted, text]));
}
