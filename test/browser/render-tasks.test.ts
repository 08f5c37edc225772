import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { firstText, recordFirstText } from './support/first-text.js';
import { shopFixtureForSuite } from './support/shop-fixture.js';

// After the page has loaded, the element's work is split into short tasks (PageSpeed's Total
// Blocking Time counts every task over 50 ms on a slow phone): each render waits for a task of
// its own, and the page's first Intl.DateTimeFormat waits for someone to open the disclosure.
// Before that, nothing waits: a stored count must be in the first frame. Seen through Chromium's
// `scheduler.yield`, which the element awaits.

const SENTENCE = '23 people are browsing this shop right now';

const shop = shopFixtureForSuite(({ site, service }) => {
  const page = (head: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">${head}</head>
     <body><p>Offer</p><live-visitors website-id="demo-shop" token="demo-token" api-base="${service.url}"></live-visitors></body></html>`;
  site.put('/after-load.html', page(`<script>addEventListener('load', () => setTimeout(() => import('/live-visitors.js')))</script>`));
  site.put('/with-page.html', page('<script type="module" src="/live-visitors.js"></script>'));
});

/** Records each `scheduler.yield()` with the document's state and the time, and when the sentence first showed. */
async function watchYields(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const record = window as unknown as { yields: Array<{ state: string; at: number }> };
    const { scheduler } = window as unknown as { scheduler: { yield(): Promise<void> } };
    const original = scheduler.yield.bind(scheduler);
    record.yields = [];
    scheduler.yield = () => {
      record.yields.push({ state: document.readyState, at: performance.now() });
      return original();
    };
  });
  await recordFirstText(page);
}

/** The document states the yields came in, and how many came before the sentence showed. */
async function yields(page: Page): Promise<{ states: string[]; beforeText: number }> {
  const { at } = await firstText(page);
  return page.evaluate((textAt) => {
    const { yields } = window as unknown as { yields: Array<{ state: string; at: number }> };
    return { states: [...new Set(yields.map(({ state }) => state))], beforeText: yields.filter(({ at }) => at <= textAt).length };
  }, at);
}

it('after load, the start and the first count wait for tasks of their own: a yield before each render', async () => {
  const context = await shop.browser.newContext();
  const page = await context.newPage();
  await watchYields(page);
  await page.goto(`${shop.site.url}/after-load.html`);
  await expect.poll(() => page.locator('live-visitors [part="text"]').textContent()).toBe(SENTENCE);
  const { states, beforeText } = await yields(page);
  // The first render (asking the service) and the render of its answer.
  expect(beforeText).toBeGreaterThanOrEqual(2);
  expect(states).toEqual(['complete']);
  await context.close();
});

it('while the page loads, a stored count renders without waiting, in time for the first paint', async () => {
  const context = await shop.browser.newContext();
  const first = await context.newPage();
  await first.goto(`${shop.site.url}/with-page.html`);
  await expect.poll(() => first.locator('live-visitors [part="text"]').textContent()).toBe(SENTENCE);
  const page = await context.newPage();
  await watchYields(page);
  await page.goto(`${shop.site.url}/with-page.html`);
  expect((await yields(page)).beforeText).toBe(0);
  await context.close();
});

it('a first visit makes no Intl.DateTimeFormat (a long task on a phone) until someone opens the disclosure', async () => {
  const context = await shop.browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(() => {
    const record = window as unknown as { dateFormats: number };
    const Original = Intl.DateTimeFormat;
    record.dateFormats = 0;
    Intl.DateTimeFormat = new Proxy(Original, {
      construct(target, args) {
        record.dateFormats++;
        return Reflect.construct(target, args);
      },
    });
  });
  await page.goto(`${shop.site.url}/after-load.html`);
  const text = page.locator('live-visitors [part="text"]');
  await expect.poll(() => text.textContent()).toBe(SENTENCE);
  const dateFormats = () => page.evaluate(() => (window as unknown as { dateFormats: number }).dateFormats);
  expect(await dateFormats()).toBe(0);
  const disclosure = page.locator('live-visitors [part="disclosure"]');
  expect(await disclosure.textContent()).toMatch(/ · updated \d\d:\d\d$/);
  await text.hover();
  expect(await dateFormats()).toBeGreaterThan(0);
  expect(await disclosure.textContent()).toMatch(/ · updated \d{1,2}:\d\d\s(AM|PM)$/);
  await context.close();
});
