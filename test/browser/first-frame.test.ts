import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { DEFAULT_INTERVAL_SECONDS } from '../../src/config.js';
import { readmeSnippet } from '../support/readme-snippet.js';
import { type FirstText, firstText, recordFirstText } from './support/first-text.js';
import { putReadmeOfferPages } from './support/readme-offer-pages.js';
import { shopFixtureForSuite } from './support/shop-fixture.js';

// Issue 29 §5: the README promises a returning shopper the stored count in the first frame. The
// acceptance run saw it before the first contentful paint once and 31 ms after it once, so this
// returns many times, as a shopper browsing the shop does, and requires it every time in English
// (texts in the element's file). A language with a file of its own cannot be held for: the element
// runs once the page's body exists, when no script can block rendering any more; its stored count
// shows once that file is in (from the cache), a few frames later, as the README says.

const RETURNS = 20;
/** The pages set no interval: a stored count serves returns for this long, then one request renews it. */
const INTERVAL_MS = DEFAULT_INTERVAL_SECONDS * 1000;
const SENTENCE = '23 people are browsing this shop right now';

const shop = shopFixtureForSuite(({ site, service }) => {
  site.put(
    '/offer-de.html',
    `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">${readmeSnippet('/live-visitors.js').script}</head>
     <body><h1>Winterschlussverkauf</h1><live-visitors website-id="demo-shop" token="demo-token" api-base="${service.url}"></live-visitors></body></html>`,
  );
  site.put(
    '/category-de.html',
    '<!doctype html><html lang="de"><title>Bohnen</title><body><a href="/offer-de.html">Nordic Roast</a></body></html>',
  );
  putReadmeOfferPages(site, service.url);
});

/** The offer page (`-de`: in German), opened directly or from a link on the shop's category page, with its sentence shown. */
async function visit(context: BrowserContext, fromShop: boolean, suffix = ''): Promise<Page> {
  const page = await context.newPage();
  await recordFirstText(page);
  if (fromShop) {
    await page.goto(`${shop.site.url}/category${suffix}.html`);
    await Promise.all([page.waitForURL(`**/offer${suffix}.html`), page.click('a')]);
  } else await page.goto(`${shop.site.url}/offer${suffix}.html`);
  const sentence = suffix ? '23 Personen sehen sich gerade in diesem Shop um' : SENTENCE;
  await expect.poll(() => page.locator('live-visitors [part="text"]').textContent()).toBe(sentence);
  return page;
}

it(`a returning shopper coming from another page of the shop sees the stored count in the first frame, ${RETURNS} returns in a row`, async () => {
  const context = await shop.browser.newContext();
  await (await visit(context, false)).close();
  const requestsBefore = shop.service.realtimeRequests;
  const storedAt = Date.now();
  const seen: FirstText[] = [];
  for (let index = 0; index < RETURNS; index += 1) {
    const page = await visit(context, true);
    seen.push(await firstText(page));
    await page.close();
  }
  const rows = seen.map(({ frame, at, firstPaint }) => `frame ${frame}, text ${at.toFixed(1)} ms, first paint ${firstPaint.toFixed(1)} ms`);
  console.log(`first text on ${RETURNS} returns:\n${rows.join('\n')}`);
  expect(seen.filter(({ frame, at, firstPaint }) => frame !== 1 || at > firstPaint)).toEqual([]);
  // The stored count was young enough: no return asked the service (on an idle machine the returns
  // take well under an interval; a busy one may see the count renewed once per interval gone).
  expect(shop.service.realtimeRequests - requestsBefore).toBeLessThanOrEqual(Math.floor((Date.now() - storedAt) / INTERVAL_MS));
  await context.close();
});

it('in a language with a file of its own, the stored count shows once that file is in, without asking the service', async () => {
  const context = await shop.browser.newContext();
  await (await visit(context, false, '-de')).close();
  const requestsBefore = shop.service.realtimeRequests;
  const storedAt = Date.now();
  const rows: string[] = [];
  for (let index = 0; index < 5; index += 1) {
    const page = await visit(context, true, '-de');
    const { frame, at, firstPaint } = await firstText(page);
    rows.push(`frame ${frame}, text ${at.toFixed(1)} ms, first paint ${firstPaint.toFixed(1)} ms`);
    await page.close();
  }
  console.log(`first text on 5 returns in German:\n${rows.join('\n')}`);
  expect(shop.service.realtimeRequests - requestsBefore).toBeLessThanOrEqual(Math.floor((Date.now() - storedAt) / INTERVAL_MS));
  await context.close();
});
