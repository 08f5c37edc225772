import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatAbout as formatAboutOf } from '../src/about.js';
import { writeTimesInDigits, writeTimesInOwnStyle } from '../src/count-time.js';
import { type BuiltInTexts, builtInLanguages, builtInTexts, writesPlainDigits } from '../src/locales/catalog.js';
import { type CustomTemplates, formatMessage, resolveLocale, type Sentence } from '../src/messages.js';
import { setEnvironment } from '../src/realtime/environment.js';
import { languageLoaded as loaded } from './support/languages.js';

const LOCALES = ['en', 'de', 'de-CH', 'fr', 'es', 'it', 'nl', 'pt', 'pt-BR', 'pl', 'ja', 'zh-TW', 'zh-Hant-HK', 'zh-CN', 'xx', 'EN-US'];
const texts = new Map<string, BuiltInTexts>();
beforeAll(async () => {
  for (const locale of LOCALES) texts.set(resolveLocale(locale), await loaded(resolveLocale(locale)));
});

/** A sentence as it reads on the page: its pieces of text with the number between them. */
const withParts = ({ texts, number, lang, count }: Sentence) => ({
  parts: texts.flatMap((text, index) => (index === 0 ? [text] : [number, text])),
  lang,
  count,
});

const format = (count: number, locale: string, custom: CustomTemplates = {}, notation?: 'compact', builtIn = texts.get(locale)!) =>
  withParts(formatMessage(count, locale, custom, builtIn, notation));

/** A custom explanation (the page's words) in the contract's window. */
const formatAbout = (template: string, timestamp: string, lang: string) =>
  formatAboutOf({ template, builtIn: false, timestamp, windowMinutes: 3, lang });

/** The sentence a reader sees for `count` in the page language `lang`, with the built-in texts. */
const sentence = (count: number, lang: string, custom: CustomTemplates = {}) => format(count, resolveLocale(lang), custom).parts.join('');

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
  it('cover at least the 35 languages of issue 13', () => {
    const required = 'en de fr es it nl pt pl sv da nb fi cs sk ro hu el bg hr sl lt lv et uk ru tr ar he ja zh ko id th vi hi'.split(' ');
    expect(builtInLanguages()).toEqual(expect.arrayContaining([...required, 'zh-Hant']));
  });

  it.each<[string, string]>([
    ['de-CH', 'de'],
    ['pt-BR', 'pt'],
    ['EN-US', 'en'],
    ['zh-TW', 'zh-Hant'],
    ['zh-Hant-HK', 'zh-Hant'],
    ['zh-CN', 'zh'],
  ])('%s uses the %s texts', async (locale, language) => {
    expect((await loaded(resolveLocale(locale))).texts).toBe((await loaded(language)).texts);
  });

  it('a language without texts (xx) gets English, marked lang="en"', () => {
    expect(texts.get('xx')).toEqual({ texts: texts.get('en')!.texts, lang: 'en' });
  });

  it('a language file loads once per page, and every element asking meanwhile hears when it is in', async () => {
    const heard: string[] = [];
    expect(builtInTexts('sv', () => heard.push('a'))).toBeNull();
    expect(builtInTexts('sv-FI', () => heard.push('b'))).toBeNull();
    await loaded('sv');
    expect(heard).toEqual(['a', 'b']);
    expect(builtInTexts('sv', () => heard.push('c'))?.texts.other).toContain('{count}');
    expect(heard).toEqual(['a', 'b']);
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
    ['es', 1, '1 persona está visitando esta tienda ahora mismo'],
    ['es', 3, '3 personas están visitando esta tienda ahora mismo'],
    ['it', 1, '1 persona sta visitando questo negozio in questo momento'],
    ['it', 3, '3 persone stanno visitando questo negozio in questo momento'],
    ['nl', 1, '1 persoon kijkt nu rond in deze winkel'],
    ['nl', 3, '3 mensen kijken nu rond in deze winkel'],
    ['pt', 1, '1 pessoa está navegando nesta loja agora'],
    ['pt', 3, '3 pessoas estão navegando nesta loja agora'],
    ['pl', 1, '1 osoba przegląda teraz ten sklep'],
    ['pl', 2, '2 osoby przeglądają teraz ten sklep'],
    ['pl', 5, '5 osób przegląda teraz ten sklep'],
    ['pl', 22, '22 osoby przeglądają teraz ten sklep'],
    ['pl', 25, '25 osób przegląda teraz ten sklep'],
    ['%%', 2, '2 people are browsing this shop right now'],
  ])('%s, %i → %j', (lang, count, expected) => {
    expect(sentence(count, lang)).toBe(expected);
  });

  it('splits the sentence around the formatted count so it can be emphasised', () => {
    expect(format(23, 'en').parts).toEqual(['', '23', ' people are browsing this shop right now']);
  });

  it('de-CH uses the German texts with Swiss digit grouping', () => {
    const [before, count, after] = format(1234, 'de-CH').parts;
    expect(before).toBe('');
    expect(count).toMatch(/^1['’]234$/);
    expect(after).toBe(' Personen sehen sich gerade in diesem Shop um');
  });

  it('an unknown language (xx) gets the English texts, marked English', () => {
    expect(format(1234, 'xx')).toEqual({ parts: ['', '1,234', ' people are browsing this shop right now'], lang: 'en', count: 1234 });
  });

  // xx has only the plural form "other": English texts need English grammar, or 1 reads "1 people".
  it('an unknown language still gets English grammar for 1', () => {
    expect(sentence(1, 'xx')).toBe('1 person is browsing this shop right now');
  });

  it.each<[string, number, string]>([
    ['en', 1234, '1.2K'],
    ['en', 999, '999'],
    ['en', 1_500_000, '1.5M'],
    ['de', 1234, '1234'],
    ['de', 12_345, '12.345'],
    ['ja', 12_345, '1.2万'],
  ])('notation="compact" in %s formats %i as %j', (locale, count, number) => {
    expect(format(count, locale, {}, 'compact').parts[1]).toBe(new Intl.NumberFormat(locale, { notation: 'compact' }).format(count));
    expect(format(count, locale, {}, 'compact').parts[1]?.replace(/\u00a0/g, ' ')).toBe(number);
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
    [1, '1 osoba przegląda teraz ten sklep'],
    [2, '2 klientów X'],
    [22, '22 klientów X'],
    [5, '5 osób przegląda teraz ten sklep'],
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
    expect(format(9, 'en', { other: 'Others are looking at this too' }).parts).toEqual(['Others are looking at this too']);
  });

  it('a template with {count} twice shows the count twice', () => {
    expect(format(1234, 'de', { other: '{count} Leute, ja {count}!' }).parts).toEqual(['', '1.234', ' Leute, ja ', '1.234', '!']);
  });

  it('returns HTML payloads as plain strings, unparsed and unescaped', () => {
    const template = '<img src=x onerror=alert(1)>{count}<script>alert("{x}")</script>&amp;';
    const { parts } = format(3, 'en', { other: template });
    expect(parts).toEqual(['<img src=x onerror=alert(1)>', '3', '<script>alert("{x}")</script>&amp;']);
    for (const part of parts) expect(typeof part).toBe('string');
  });
});

// Issue 25, defect 8 (failed on 8a36914): a template without {count} showed as literal text, silently.
describe('a custom template without {count}', () => {
  it('warns once per template in the development build, naming it; a template with {count} is quiet', () => {
    const warnings: string[] = [];
    const restore = setEnvironment({ warn: (message) => warnings.push(message) });
    try {
      for (let render = 0; render < 3; render++) format(5, 'en', { other: '{COUNT} shoppers here' });
      format(5, 'en', { other: '{count } shoppers here' });
      format(1, 'en', { one: 'One shopper', other: '{count} shoppers' });
      format(5, 'en', { other: '{count} shoppers, {count} carts' });
    } finally {
      restore();
    }
    expect(warnings).toEqual([
      expect.stringContaining('"{COUNT} shoppers here"'),
      expect.stringContaining('"{count } shoppers here"'),
      expect.stringContaining('"One shopper"'),
    ]);
    for (const warning of warnings) expect(warning).toContain('{count}');
  });

  it('still shows the template as it is', () => {
    expect(format(5, 'en', { other: 'Busy today' }).parts).toEqual(['Busy today']);
  });
});

describe('formatAbout', () => {
  afterEach(() => writeTimesInDigits());

  it("puts the local time the count was collected in place of {time}: in digits, then in the language's own way", () => {
    const timestamp = '2026-11-22T12:04:00.000Z';
    const at = new Date(timestamp);
    const digits = `${String(at.getHours()).padStart(2, '0')}:04`;
    expect(formatAbout('Stand {time}.', timestamp, 'de')).toBe(`Stand ${digits}.`);
    expect(formatAbout(texts.get('en')!.texts.about, timestamp, 'en')).toBe(
      `Unique visitors on this whole site in the last 3 minutes · updated ${digits}`,
    );
    writeTimesInOwnStyle();
    expect(formatAbout(texts.get('en')!.texts.about, timestamp, 'en')).toMatch(
      /^Unique visitors on this whole site in the last 3 minutes · updated \d{1,2}:04\s?(AM|PM)$/,
    );
  });

  // Issue 25, defect 8 (failed on 8a36914): only the first {time} was replaced.
  it('replaces every {time}, however many and wherever', () => {
    const timestamp = '2026-11-22T12:04:00.000Z';
    const digits = `${String(new Date(timestamp).getHours()).padStart(2, '0')}:04`;
    expect(formatAbout('x {time}{time}', timestamp, 'en')).toBe(`x ${digits}${digits}`);
    expect(formatAbout('{time} · {time} · {time}', timestamp, 'en')).toBe(`${digits} · ${digits} · ${digits}`);
  });

  it('leaves a text without {time} as it is', () => {
    expect(formatAbout('Live data from our analytics', '2026-11-22T12:04:00.000Z', 'en')).toBe('Live data from our analytics');
  });
});

describe('plain digits without Intl.NumberFormat', () => {
  const REGIONS = [
    '',
    'US',
    'GB',
    'DE',
    'AT',
    'CH',
    'FR',
    'BE',
    'CA',
    'ES',
    'MX',
    'AR',
    'BR',
    'PT',
    'IN',
    'EG',
    'SA',
    'MA',
    'IL',
    'JP',
    'CN',
    'TW',
    'HK',
    'KR',
    'TH',
    'VN',
    'ID',
    'TR',
    'RU',
    'UA',
  ];
  const COUNTS = [0, 1, 7, 23, 99, 100, 512, 999];

  it('writes 0–999 exactly as Intl.NumberFormat would, for every built-in language in every region it trusts', () => {
    const wrong: string[] = [];
    for (const language of builtInLanguages()) {
      for (const region of REGIONS) {
        const locale = resolveLocale(region ? `${language}-${region}` : language);
        for (const count of COUNTS) {
          const ours = format(count, locale, {}, undefined, texts.get('en')!).parts[1];
          const intl = new Intl.NumberFormat(locale).format(count);
          if (ours !== intl) wrong.push(`${locale} ${count}: ${ours} ≠ ${intl}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each(['ar-EG', 'ar-SA', 'fa', 'bn', 'mr', 'de-u-nu-arab', 'hi-u-nu-deva'])(
    'asks Intl where digits differ or are unknown (%s)',
    (locale) => {
      expect(writesPlainDigits(resolveLocale(locale))).toBe(false);
      expect(format(23, resolveLocale(locale), {}, undefined, texts.get('en')!).parts[1]).toBe(new Intl.NumberFormat(locale).format(23));
    },
  );
});
