import { describe, expect, it, vi } from 'vitest';
import { builtInTexts } from '../src/locales/catalog.js';
import en from '../src/locales/en.js';
import { loadLanguage } from '../src/locales/on-demand.js';

// A language file that cannot be loaded (a CDN copy without locales/, a blocked request).
vi.mock('../src/locales/on-demand.js', () => ({
  ON_DEMAND_LANGUAGES: ['de'],
  loadLanguage: vi.fn(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module'))),
}));

describe('a language file that fails to load', () => {
  it('is asked for once; English (marked en) shows from then on, with no update loop', async () => {
    const onLoad = vi.fn();
    expect(builtInTexts('de-DE', onLoad)).toBeNull();
    await vi.waitFor(() => expect(onLoad).toHaveBeenCalledOnce());
    // What the element's next update asks: English now, and no second load (which would call
    // onLoad again, update again, and so on for ever).
    expect(builtInTexts('de-DE', onLoad)).toEqual({ texts: en, lang: 'en' });
    expect(builtInTexts('de-AT', onLoad)).toEqual({ texts: en, lang: 'en' });
    await Promise.resolve();
    expect(loadLanguage).toHaveBeenCalledOnce();
    expect(onLoad).toHaveBeenCalledOnce();
  });
});
