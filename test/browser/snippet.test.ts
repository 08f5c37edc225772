import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { firstText, recordFirstText } from './support/first-text.js';
import { layoutShifts, recordLayoutShifts } from './support/layout-shifts.js';
import { putReadmeOfferPages } from './support/readme-offer-pages.js';
import { shopFixtureForSuite } from './support/shop-fixture.js';

// The README's snippet, word for word, on a shop page: when it fetches the element, that the
// sentence then moves nothing, and that a stored count is in the first frame.

const SETTLE_MS = 500;
const SENTENCE = '23 people are browsing this shop right now';

const shop = shopFixtureForSuite(({ site, service }) => {
  putReadmeOfferPages(site, service.url);
});

/** When the page's load event began and when the element's file was requested, by the page's clock. */
function loadAndBundleTimes(page: Page) {
  return page.evaluate(() => {
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const bundle = performance.getEntriesByType('resource').find((entry) => entry.name.endsWith('/live-visitors.js'));
    return { load: navigation.loadEventStart, bundle: bundle?.startTime ?? null };
  });
}

/**
 * A shopper's tab; on a phone-wide screen (360 px) the sentence takes two lines. `fromShop`: the
 * shopper follows a link from another page of the shop, else opens the page directly.
 */
async function openShop(context: BrowserContext, { fromShop = false } = {}): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.addInitScript(recordLayoutShifts);
  await recordFirstText(page);
  if (fromShop) {
    await page.goto(`${shop.site.url}/category.html`);
    await Promise.all([page.waitForURL('**/offer.html'), page.click('a')]);
  } else await page.goto(`${shop.site.url}/offer.html`);
  return { page, errors };
}

const sentence = (page: Page) => page.locator('live-visitors [part="text"]');
const showsSentence = (page: Page) => expect.poll(() => sentence(page).textContent()).toBe(SENTENCE);

/** A shopper's browser after a first visit, with the count stored; and the service's request count by then. */
async function returningShopper(): Promise<{ context: BrowserContext; requestsBefore: number }> {
  const context = await shop.browser.newContext();
  const { page } = await openShop(context);
  await showsSentence(page);
  return { context, requestsBefore: shop.service.realtimeRequests };
}

it(`on a first visit, fetches the element only ${SETTLE_MS} ms after the load event; the sentence then wraps onto the kept lines and moves nothing`, async () => {
  const context = await shop.browser.newContext({ viewport: { width: 360, height: 740 } });
  const { page, errors } = await openShop(context);
  await showsSentence(page);
  const { load, bundle } = await loadAndBundleTimes(page);
  expect(bundle).not.toBeNull();
  expect(bundle! - load).toBeGreaterThanOrEqual(SETTLE_MS - 1);
  // Two lines at this width: the case one kept line would not cover.
  const lines = await page
    .locator('live-visitors')
    .evaluate((element) => element.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(element).lineHeight));
  expect(Math.round(lines)).toBe(2);
  expect(await layoutShifts(page)).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
});

it('for a returning shopper coming from another page of the shop, fetches the element at once and shows the stored count in the first frame, without asking the service', async () => {
  const { context, requestsBefore } = await returningShopper();
  for (let visit = 0; visit < 3; visit += 1) {
    const { page: next } = await openShop(context, { fromShop: true });
    await showsSentence(next);
    const { load, bundle } = await loadAndBundleTimes(next);
    expect(bundle).not.toBeNull();
    expect(bundle!).toBeLessThan(load);
    const { frame, at, firstPaint } = await firstText(next);
    expect(frame).toBe(1);
    expect(firstPaint - at).toBeGreaterThanOrEqual(0);
    expect(await layoutShifts(next)).toEqual([]);
    await next.close();
  }
  expect(shop.service.realtimeRequests).toBe(requestsBefore);
  await context.close();
});

it('for a returning shopper opening the page directly (a bookmark), waits as on a first visit, then shows the stored count without asking the service', async () => {
  const { context, requestsBefore } = await returningShopper();
  const { page: next } = await openShop(context);
  await showsSentence(next);
  const { load, bundle } = await loadAndBundleTimes(next);
  expect(bundle! - load).toBeGreaterThanOrEqual(SETTLE_MS - 1);
  expect(shop.service.realtimeRequests).toBe(requestsBefore);
  await context.close();
});

// Issue 25, defect 12 (failed on c7b220e): a reload or a back/forward navigation of a page entered
// from elsewhere (its referrer stays the search engine's, or none) waited as on a first visit.
it.each([
  ['reloads a page it opened directly', async (page: Page) => void (await page.reload())],
  [
    'comes back to it with the back button',
    async (page: Page) => {
      await page.goto(`${shop.site.url}/category.html`);
      await page.goBack();
    },
  ],
])(
  'for a returning shopper who %s, fetches the element at once and shows the stored count in the first frame, without asking the service',
  async (_, navigate) => {
    const { context, requestsBefore } = await returningShopper();
    const { page } = await openShop(context);
    await showsSentence(page);
    await navigate(page);
    await showsSentence(page);
    const { type, load, bundle } = await page.evaluate(() => {
      const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const script = performance.getEntriesByType('resource').find((entry) => entry.name.endsWith('/live-visitors.js'));
      return { type: navigation.type, load: navigation.loadEventStart, bundle: script?.startTime ?? null };
    });
    expect(type).not.toBe('navigate');
    expect(bundle).not.toBeNull();
    expect(bundle!).toBeLessThan(load);
    expect((await firstText(page)).frame).toBe(1);
    expect(await layoutShifts(page)).toEqual([]);
    expect(shop.service.realtimeRequests).toBe(requestsBefore);
    await context.close();
  },
);

it('with storage blocked (localStorage throws), coming from another page of the shop, waits as on a first visit and still shows the count, with no error', async () => {
  const context = await shop.browser.newContext();
  await context.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', {
      get() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    });
  });
  const { page, errors } = await openShop(context, { fromShop: true });
  await showsSentence(page);
  const { load, bundle } = await loadAndBundleTimes(page);
  expect(bundle! - load).toBeGreaterThanOrEqual(SETTLE_MS - 1);
  expect(errors).toEqual([]);
  await context.close();
});
