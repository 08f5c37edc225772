import en from './en.js';
import type { LocaleTexts } from './locale-texts.js';
import { loadLanguage, ON_DEMAND_LANGUAGES } from './on-demand.js';

export const DEFAULT_LANGUAGE = 'en';

/** Texts in hand, by key; a pending load is its promise, a failed one null (English then). */
const cache = new Map<string, LocaleTexts | Promise<unknown> | null>([[DEFAULT_LANGUAGE, en]]);

/** The languages with built-in texts (keys as in `textsKey`). */
export function builtInLanguages(): string[] {
  return [DEFAULT_LANGUAGE, ...ON_DEMAND_LANGUAGES];
}

/**
 * Which texts a locale reads: its language (`de-CH` → `de`), and for Chinese its script, so
 * `zh-TW`, `zh-HK` and `zh-Hant` read Traditional characters. Only Chinese asks `Intl.Locale`:
 * its first use costs a phone some 30 ms of main thread.
 */
export function textsKey(locale: string): string {
  const language = locale.split('-')[0]!;
  return language === 'zh' && new Intl.Locale(locale).maximize().script === 'Hant' ? 'zh-Hant' : language;
}

/**
 * Whether a canonical locale writes 0 to 999 as plain digits, so they need no `Intl.NumberFormat`,
 * whose first use on a page is a long task on a phone (about 80 ms at 4× CPU slowdown). Every
 * built-in language does in every region, except Arabic (`ar-EG` writes ٢٣), and unless the tag
 * asks for other digits (`-u-nu-…`). Other languages ask `Intl`.
 */
export function writesPlainDigits(locale: string): boolean {
  const language = locale.split('-')[0]!;
  return language !== 'ar' && !locale.includes('-u-') && builtInLanguages().includes(language);
}

/** A locale's built-in texts and the language they are in. */
export interface BuiltInTexts {
  texts: LocaleTexts;
  lang: string;
}

/**
 * The built-in texts for a canonical locale: its own when in hand, English (`lang` "en") for a
 * language without texts or whose file failed to load, or null while its file loads (fetched
 * once per page), after which `onLoad` runs.
 */
export function builtInTexts(locale: string, onLoad: () => void): BuiltInTexts | null {
  const key = textsKey(locale);
  let entry = cache.get(key);
  // Only a language never asked for loads: a failed one is null, and stays English.
  if (entry === undefined) {
    entry = loadLanguage(key)?.then(
      (module) => cache.set(key, module.default),
      () => cache.set(key, null),
    );
    if (entry) cache.set(key, entry);
  }
  if (entry instanceof Promise) {
    void entry.then(onLoad);
    return null;
  }
  return entry ? { texts: entry, lang: locale } : { texts: en, lang: DEFAULT_LANGUAGE };
}
