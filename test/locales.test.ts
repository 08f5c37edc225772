import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withWindow } from '../src/about.js';
import type { LocaleTexts } from '../src/locales/locale-texts.js';

/** The languages with built-in texts: one file each in `src/locales`, named by its tag. */
const TAGS = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'nl',
  'pt',
  'pl',
  'sv',
  'da',
  'nb',
  'fi',
  'cs',
  'sk',
  'ro',
  'hu',
  'el',
  'bg',
  'hr',
  'sl',
  'lt',
  'lv',
  'et',
  'uk',
  'ru',
  'tr',
  'ar',
  'he',
  'ja',
  'zh',
  'zh-Hant',
  'ko',
  'id',
  'th',
  'vi',
  'hi',
];

const CATEGORIES: readonly Intl.LDMLPluralRule[] = ['zero', 'one', 'two', 'few', 'many', 'other'];

/** Counts that reach every category a language uses for whole numbers, up to the largest a count can be. */
const COUNTS = [
  ...Array.from({ length: 201 }, (_, n) => n),
  1000,
  1001,
  1002,
  1003,
  1005,
  1011,
  1021,
  1100,
  10_000,
  100_000,
  1_000_000,
  1_000_001,
  2_000_000,
  10 ** 9,
  Number.MAX_SAFE_INTEGER,
];

// A path, not `new URL(…)`: happy-dom's URL is not the one `fileURLToPath` takes.
const directory = join(dirname(fileURLToPath(import.meta.url)), '../src/locales');

/**
 * Every language's file, by tag: the modules in `src/locales` named like a language tag (`de`,
 * `zh-Hant`, `pt-BR`). The others there (the `LocaleTexts` type, the catalog that loads the files)
 * are not imported: the catalog would fail to load over a missing file before this could say which.
 */
const locales = await Promise.all(
  readdirSync(directory)
    .filter((file) => /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-[A-Z]{2}|-\d{3})?\.ts$/.test(file))
    .map(async (file) => {
      const module: { default: LocaleTexts } = await import(/* @vite-ignore */ join(directory, file));
      return [file.slice(0, -'.ts'.length), module.default] as const;
    }),
);

/** The plural templates of a file: everything but `about`. */
const templates = (texts: LocaleTexts) => Object.entries(texts).filter(([key]) => key !== 'about');

/** The `{...}` placeholders in a text. */
const placeholders = (text: string) => text.match(/\{[^}]*\}/g) ?? [];

describe('built-in texts', () => {
  it('has one file for each supported language, and no other', () => {
    const found = locales.map(([tag]) => tag);
    const missing = TAGS.filter((tag) => !found.includes(tag));
    const unexpected = found.filter((tag) => !TAGS.includes(tag));
    expect({ missing, unexpected }).toEqual({ missing: [], unexpected: [] });
  });

  describe.each(locales)('%s', (tag, texts) => {
    it('has a template for every plural category its whole numbers use', () => {
      const rules = new Intl.PluralRules(tag);
      const missing = COUNTS.map((n) => ({ n, category: rules.select(n) }))
        .filter(({ category }) => texts[category] === undefined)
        .map(({ n, category }) => `${tag}: ${n} is "${category}", which has no template`);
      expect(missing, `${missing.length} counts without their own template:\n${missing.slice(0, 10).join('\n')}`).toEqual([]);
    });

    it('has `{count}` once in each template, and no other placeholder', () => {
      expect(texts.other).toBeDefined();
      for (const [category, text] of templates(texts)) {
        expect(typeof text, `${tag}.${category}`).toBe('string');
        expect(text!.trim(), `${tag}.${category} is empty`).not.toBe('');
        expect(text, `${tag}.${category} has whitespace around it`).toBe(text!.trim());
        expect(placeholders(text!), `${tag}.${category}`).toEqual(['{count}']);
      }
    });

    it('says in `about` when the count was collected, with `{time}` once', () => {
      expect(typeof texts.about, `${tag}.about`).toBe('string');
      expect(texts.about.trim(), `${tag}.about is empty`).not.toBe('');
      expect(texts.about, `${tag}.about has whitespace around it`).toBe(texts.about.trim());
      expect(placeholders(texts.about), `${tag}.about`).toEqual(['{time}']);
    });

    // Issue 32: a relay's source may count another window; `Intl` writes it, in place of the 3 minutes.
    it("names the contract's window in `about` once, as Intl writes 3 minutes, so any window from 1 to 60 takes its place", () => {
      const minutes = (count: number) => new Intl.NumberFormat(tag, { style: 'unit', unit: 'minute', unitDisplay: 'long' }).format(count);
      expect(texts.about.split(minutes(3)), `${tag}.about names "${minutes(3)}" once`).toHaveLength(2);
      expect(texts.about.match(/3/g), `${tag}.about has one 3, the window's (the fallback where Intl words differ)`).toHaveLength(1);
      expect(withWindow(texts.about, 3, tag)).toBe(texts.about);
      for (let window = 1; window <= 60; window += 1) {
        if (window === 3) continue;
        const text = withWindow(texts.about, window, tag);
        expect(text).toBe(texts.about.replace(minutes(3), minutes(window)));
        expect(text).toContain(minutes(window));
      }
    });

    it('has only plural categories and `about`', () => {
      const unknown = Object.keys(texts).filter((key) => key !== 'about' && !CATEGORIES.includes(key as Intl.LDMLPluralRule));
      expect(unknown, tag).toEqual([]);
    });
  });

  it('gives Arabic all six plural forms', () => {
    const arabic = locales.find(([tag]) => tag === 'ar')?.[1];
    expect(arabic).toBeDefined();
    expect(new Intl.PluralRules('ar').resolvedOptions().pluralCategories.sort()).toEqual([...CATEGORIES].sort());
    for (const category of CATEGORIES) expect(arabic?.[category], `ar.${category}`).toEqual(expect.stringContaining('{count}'));
  });
});
