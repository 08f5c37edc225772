import { describe, expect, it } from 'vitest';
import { builtInTemplates, formatMessage, type PluralTemplates, resolveLocale, supportedLanguages } from '../src/messages.js';

/** The sentence a reader sees for `count` in the page language `lang`, with the built-in texts. */
const sentence = (count: number, lang: string, custom: Partial<PluralTemplates> = {}) =>
  formatMessage(count, resolveLocale(lang), custom).parts.join('');

const NNBSP = '\u202f';

describe('resolveLocale', () => {
  it.each<[string | null | undefined, string]>([
    [undefined, 'en'],
    [null, 'en'],
    ['', 'en'],
    ['   ', 'en'],
    ['%%', 'en'],
    ['not a locale', 'en'],
    ['x', 'en'],
    ['de', 'de'],
    [' fr ', 'fr'],
    ['de-ch', 'de-CH'],
    ['EN-gb', 'en-GB'],
    ['ja', 'ja'],
  ])('%j → %j', (lang, locale) => {
    expect(resolveLocale(lang)).toBe(locale);
  });

  it.each(['', '   ', 'not a language!', null, undefined])('falls back to English for %j', (lang) => {
    expect(resolveLocale(lang)).toBe('en');
  });
});

describe('built-in texts', () => {
  it('cover at least en, de, fr, es, it, nl, pt and pl', () => {
    expect(supportedLanguages()).toEqual(expect.arrayContaining(['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl']));
  });

  it.each(supportedLanguages())('%s has a one and an other form, each with {count} exactly once', (language) => {
    const templates = builtInTemplates(language);
    expect(templates.one).toEqual(expect.any(String));
    expect(templates.other).toEqual(expect.any(String));
    expect(templates.one).not.toBe(templates.other);
    for (const [category, template] of Object.entries(templates)) {
      expect(template.split('{count}'), `${language}.${category}`).toHaveLength(2);
    }
  });

  it.each([
    ['de-CH', 'de'],
    ['pt-BR', 'pt'],
    ['EN-US', 'en'],
    ['ja', 'en'],
    ['zh-Hant-TW', 'en'],
  ])('%s uses the %s texts', (locale, language) => {
    expect(builtInTemplates(locale)).toBe(builtInTemplates(language));
  });
});

describe('formatMessage with the built-in texts', () => {
  it.each<[string, number, string]>([
    ['en', 1, '1 person is browsing this shop right now'],
    ['en', 2, '2 people are browsing this shop right now'],
    ['en', 1234, '1,234 people are browsing this shop right now'],
    ['de', 1, '1 Person sieht sich gerade in diesem Shop um'],
    ['de', 1234, '1.234 Personen sehen sich gerade in diesem Shop um'],
    ['fr', 1, '1 personne visite cette boutique en ce moment'],
    ['fr', 1234, `1${NNBSP}234 personnes visitent cette boutique en ce moment`],
    ['es', 1, '1 persona está viendo esta tienda ahora mismo'],
    ['es', 3, '3 personas están viendo esta tienda ahora mismo'],
    ['it', 1, '1 persona sta visitando questo negozio in questo momento'],
    ['it', 3, '3 persone stanno visitando questo negozio in questo momento'],
    ['nl', 1, '1 persoon bekijkt deze winkel op dit moment'],
    ['nl', 3, '3 personen bekijken deze winkel op dit moment'],
    ['pt', 1, '1 pessoa está vendo esta loja agora'],
    ['pt', 3, '3 pessoas estão vendo esta loja agora'],
    ['pl', 1, '1 osoba ogląda teraz ten sklep'],
    ['pl', 2, '2 osoby oglądają teraz ten sklep'],
    ['pl', 5, '5 osób ogląda teraz ten sklep'],
    ['pl', 22, '22 osoby oglądają teraz ten sklep'],
    ['pl', 25, '25 osób ogląda teraz ten sklep'],
    ['%%', 2, '2 people are browsing this shop right now'],
  ])('%s, %i → %j', (lang, count, expected) => {
    expect(sentence(count, lang)).toBe(expected);
  });

  it.each<[string, string]>([
    ['es', '1.000.000 personas están viendo esta tienda ahora mismo'],
    ['it', '1.000.000 persone stanno visitando questo negozio in questo momento'],
    ['pt', '1.000.000 pessoas estão vendo esta loja agora'],
  ])('%s falls back to the other form for the "many" category it has no text for (1,000,000)', (lang, expected) => {
    expect(new Intl.PluralRules(lang).select(1_000_000)).toBe('many');
    expect(sentence(1_000_000, lang)).toBe(expected);
  });

  it('splits the sentence around the formatted count so it can be emphasised', () => {
    expect(formatMessage(23, 'en', {}).parts).toEqual(['', '23', ' people are browsing this shop right now']);
  });

  it('de-CH uses the German texts with Swiss digit grouping', () => {
    const [before, count, after] = formatMessage(1234, resolveLocale('de-CH'), {}).parts;
    expect(before).toBe('');
    expect(count).toMatch(/^1['’]234$/);
    expect(after).toBe(' Personen sehen sich gerade in diesem Shop um');
  });

  it('an unknown language (ja) gets the English texts with Japanese number format', () => {
    expect(formatMessage(1234, resolveLocale('ja'), {}).parts).toEqual(['', '1,234', ' people are browsing this shop right now']);
    expect(formatMessage(1234, 'ja', {}).parts[1]).toBe(new Intl.NumberFormat('ja').format(1234));
  });

  // Japanese has only the plural form "other": English texts need English grammar, or 1 reads "1 people".
  it('an unknown language with one plural form still gets English grammar for 1', () => {
    expect(sentence(1, 'ja')).toBe('1 person is browsing this shop right now');
  });
});

describe('formatMessage with custom templates', () => {
  it.each<[number, string]>([
    [1, 'Only 1 left watching!'],
    [7, 'Only 7 left watching!'],
  ])('text alone is used for every count (%i)', (count, expected) => {
    expect(sentence(count, 'en', { other: 'Only {count} left watching!' })).toBe(expected);
  });

  it('text-one alone overrides only the singular; other counts keep the built-in text', () => {
    const custom = { one: 'A single shopper is here' };
    expect(sentence(1, 'en', custom)).toBe('A single shopper is here');
    expect(sentence(2, 'en', custom)).toBe('2 people are browsing this shop right now');
  });

  it('text-one and text together cover both forms', () => {
    const custom = { one: '{count} fan', other: '{count} fans' };
    expect(sentence(1, 'de', custom)).toBe('1 fan');
    expect(sentence(1234, 'de', custom)).toBe('1.234 fans');
  });

  it.each<[number, string]>([
    [1, '1 osoba ogląda teraz ten sklep'],
    [2, '2 klientów X'],
    [22, '22 klientów X'],
    [5, '5 osób ogląda teraz ten sklep'],
  ])('text-few for pl is used only for the "few" counts (%i)', (count, expected) => {
    expect(sentence(count, 'pl', { few: '{count} klientów X' })).toBe(expected);
  });

  it('a custom text covers plural forms it does not name, before the built-in ones', () => {
    expect(sentence(5, 'pl', { few: '{count} A', other: '{count} B' })).toBe('5 B');
  });

  it('empty custom templates are ignored', () => {
    expect(sentence(2, 'en', { one: '', other: '' })).toBe('2 people are browsing this shop right now');
  });

  it('a template without {count} is shown as it is', () => {
    expect(formatMessage(9, 'en', { other: 'Others are looking at this too' }).parts).toEqual(['Others are looking at this too']);
  });

  it('a template with {count} twice shows the count twice', () => {
    expect(formatMessage(1234, 'de', { other: '{count} Leute, ja {count}!' }).parts).toEqual(['', '1.234', ' Leute, ja ', '1.234', '!']);
  });

  it('returns HTML payloads as plain strings, unparsed and unescaped', () => {
    const template = '<img src=x onerror=alert(1)>{count}<script>alert("{x}")</script>&amp;';
    const { parts } = formatMessage(3, 'en', { other: template });
    expect(parts).toEqual(['<img src=x onerror=alert(1)>', '3', '<script>alert("{x}")</script>&amp;']);
    for (const part of parts) expect(typeof part).toBe('string');
  });
});
