// The bundle without on-demand languages: English for every page.
import en from '../../src/locales/en.js';

export const DEFAULT_LANGUAGE = 'en';
export const builtInTexts = () => ({ texts: en, lang: DEFAULT_LANGUAGE });
export const writesPlainDigits = (_locale: string) => false;
export const textsKey = (locale: string) => locale.split('-')[0]!;
