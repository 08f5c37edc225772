import { type BuiltInTexts, builtInTexts } from '../../src/locales/catalog.js';

/** Resolves once a locale's built-in texts are in (its file loaded, as the element loads it). */
export function languageLoaded(locale: string): Promise<BuiltInTexts> {
  return new Promise((resolve) => {
    const attempt = () => {
      const texts = builtInTexts(locale, attempt);
      if (texts) resolve(texts);
    };
    attempt();
  });
}
