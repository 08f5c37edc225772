import { DEV_MODE } from './dev-mode.js';
import { type BuiltInTexts, DEFAULT_LANGUAGE, writesPlainDigits } from './locales/catalog.js';
import { environment } from './realtime/environment.js';

/** Templates from the element's attributes; any of them may be unset. */
export type CustomTemplates = Partial<Record<Intl.LDMLPluralRule, string | null | undefined>>;

/** `standard` ("1,234 people") or `compact` ("1.2K people"), as `Intl.NumberFormat` names them. */
export type Notation = 'standard' | 'compact';

/** A valid BCP 47 tag for `Intl`, or the default when the page's `lang` is junk. */
export function resolveLocale(lang: string | null | undefined): string {
  try {
    return Intl.getCanonicalLocales(lang?.trim() || DEFAULT_LANGUAGE)[0]!;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

/** The sentence to show: the template's text around the count (`['', ' people …']`), the count formatted, its language and the count. */
export interface Sentence {
  /** The pieces of text between which the number stands: one more than the number's places. */
  texts: string[];
  /** The count, as the language writes it. */
  number: string;
  lang: string;
  count: number;
}

/**
 * The sentence for `count`, split around the formatted number so the element can emphasise it.
 * Custom templates win over built-in ones; a plural form missing from either falls back to its
 * `other` form. Custom texts are in the page's language; built-in ones may be English fallbacks,
 * which need English plurals and `lang="en"` for screen readers.
 */
export function formatMessage(
  count: number,
  locale: string,
  custom: CustomTemplates,
  builtIn: BuiltInTexts,
  notation?: Notation,
): Sentence {
  const hasCustom = Object.values(custom).some(Boolean);
  if (DEV_MODE) for (const text of Object.values(custom)) if (text) warnWithoutCount(text);
  const lang = hasCustom ? locale : builtIn.lang;
  const category = new Intl.PluralRules(lang).select(count);
  const { texts } = builtIn;
  const template = (hasCustom && (custom[category] || custom.other)) || texts[category] || texts.other;
  const number = count < 1000 && writesPlainDigits(locale) ? String(count) : new Intl.NumberFormat(locale, { notation }).format(count);
  return { texts: template.split('{count}'), number, lang, count };
}

/** Templates already warned about: a page renders each many times. */
const warned = new Set<string>();

/** `{COUNT}` or `{count }` shows as typed, with no number: the development build says so, once per template. */
function warnWithoutCount(template: string): void {
  if (template.includes('{count}') || warned.has(template)) return;
  warned.add(template);
  environment().warn(`the text "${template}" has no {count}, so it shows no number: check its spelling.`);
}
