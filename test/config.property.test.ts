import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../src/define.js';
import { MIN_INTERVAL_SECONDS, resolveApiBase, resolveConfig } from '../src/config.js';
import { holds, numberLikeText } from './support/properties.js';

const PAGE = 'https://shop.example/products/red-shoes?ref=mail#reviews';
const ORIGIN = 'https://shop.example';
const DAY_MS = 24 * 60 * 60_000;
/** Distinctive, so a leak into a message cannot hide. */
const TOKEN = 'tok_SECRET_7f3a9c21e5';

/** Pieces the URL parser treats specially, so that values built of them probe its corners. */
const urlPieces = fc.constantFrom(
  '/',
  '//',
  '\\',
  '\t',
  '\n',
  ' ',
  'evil.example',
  'shop.example',
  '@',
  ':',
  '.',
  '..',
  '%2F',
  '%5C',
  '?',
  '#',
  'https:',
  'http:',
  'relay',
  ':443',
  '[::1]',
);
const apiBaseLike = fc.oneof(
  fc.array(urlPieces, { maxLength: 6 }).map((pieces) => pieces.join('')),
  fc.array(urlPieces, { maxLength: 5 }).map((pieces) => `/${pieces.join('')}`),
  fc.webUrl(),
  fc.string(),
);

/** What a CMS setting, a framework or a typo may hand the element as a number. */
const numberLike = fc.option(fc.oneof(fc.double(), fc.integer(), numberLikeText.map(Number)));

describe('api-base, for any value', () => {
  it('is null or an http(s) origin and path without credentials or a trailing slash; a value that is not `//host` or `scheme://host` stays on the page origin', () => {
    holds(
      fc.property(fc.option(apiBaseLike), (value) => {
        const base = resolveApiBase(value, PAGE);
        if (base === null) return;
        const url = new URL(base);
        expect(url.protocol).toMatch(/^https?:$/);
        expect(url.username + url.password).toBe('');
        expect(base).not.toMatch(/\/$/);
        if (!/^(https?:)?\/\//i.test(value?.trim() || '/')) expect(url.origin).toBe(ORIGIN);
      }),
      2000,
    );
  });
});

describe('the attributes, for any values', () => {
  const attributes = fc.record(
    {
      websiteId: fc.option(fc.oneof(fc.string(), fc.constant('shop-1'))),
      token: fc.option(fc.oneof(fc.constant(TOKEN), fc.constant(`${TOKEN} `), fc.constant(`tök ${TOKEN}`), fc.string())),
      apiBase: fc.option(apiBaseLike),
      interval: numberLike,
      maxAge: numberLike,
      min: numberLike,
    },
    { requiredKeys: [] },
  );

  it('resolve to a message naming the fix, without the token, or to a configuration within every bound', () => {
    holds(
      fc.property(attributes, (given) => {
        const config = resolveConfig(given, PAGE);
        if (typeof config === 'string') {
          expect(config).not.toContain(TOKEN);
          return;
        }
        const { intervalMs, maxAgeMs, min, key } = config;
        expect(intervalMs >= MIN_INTERVAL_SECONDS * 1000 && intervalMs <= DAY_MS).toBe(true);
        expect(maxAgeMs >= intervalMs + 10_000 && maxAgeMs <= 7 * DAY_MS).toBe(true);
        expect(Number.isInteger(min) && min >= 1).toBe(true);
        expect(key.websiteId).toBe(key.websiteId.trim());
        expect(key.websiteId).not.toBe('');
        if (key.token !== undefined) expect(key.token).toMatch(/^[\x21-\x7e]+$/);
      }),
    );
  });

  it('numeric attributes: blank means unset (the default), anything else its Number, never a throw', () => {
    const element = document.createElement('live-visitors');
    holds(
      fc.property(fc.constantFrom('interval', 'max-age', 'min', 'holdout'), fc.oneof(numberLikeText, fc.string()), (name, text) => {
        element.setAttribute(name, text);
        const property = name === 'max-age' ? 'maxAge' : (name as 'interval' | 'min' | 'holdout');
        const value = element[property];
        if (text.trim() === '') expect(value).toBeNull();
        else expect(value).toBe(Number(text));
        const config = resolveConfig({ websiteId: 'shop-1', interval: element.interval, maxAge: element.maxAge, min: element.min }, PAGE);
        expect(typeof config).not.toBe('string');
      }),
    );
  });
});
