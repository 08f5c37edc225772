import type { LocaleTexts } from './locale-texts.js';

type Loader = () => Promise<{ default: LocaleTexts }>;

/**
 * Every language but English is a file of its own, loaded when a page first needs it: a lazy
 * chunk of the shop's bundle, with literal specifiers so every bundler sees them. The script-tag
 * build replaces this module with a shorter loader of the same files (vite.config.ts).
 */
const LOADERS: Record<string, Loader> = {
  ar: () => import('./ar.js'),
  bg: () => import('./bg.js'),
  cs: () => import('./cs.js'),
  da: () => import('./da.js'),
  de: () => import('./de.js'),
  el: () => import('./el.js'),
  es: () => import('./es.js'),
  et: () => import('./et.js'),
  fi: () => import('./fi.js'),
  fr: () => import('./fr.js'),
  he: () => import('./he.js'),
  hi: () => import('./hi.js'),
  hr: () => import('./hr.js'),
  hu: () => import('./hu.js'),
  id: () => import('./id.js'),
  it: () => import('./it.js'),
  ja: () => import('./ja.js'),
  ko: () => import('./ko.js'),
  lt: () => import('./lt.js'),
  lv: () => import('./lv.js'),
  nb: () => import('./nb.js'),
  nl: () => import('./nl.js'),
  pl: () => import('./pl.js'),
  pt: () => import('./pt.js'),
  ro: () => import('./ro.js'),
  ru: () => import('./ru.js'),
  sk: () => import('./sk.js'),
  sl: () => import('./sl.js'),
  sv: () => import('./sv.js'),
  th: () => import('./th.js'),
  tr: () => import('./tr.js'),
  uk: () => import('./uk.js'),
  vi: () => import('./vi.js'),
  zh: () => import('./zh.js'),
  'zh-Hant': () => import('./zh-Hant.js'),
};

/** The languages with a file of their own. */
export const ON_DEMAND_LANGUAGES = Object.keys(LOADERS);

/** Starts loading the texts of a language with a file of its own; undefined for any other. */
export function loadLanguage(key: string): ReturnType<Loader> | undefined {
  return LOADERS[key]?.();
}
