import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readmeSnippet } from '../support/readme-snippet.js';
import { launchChromium } from './support/chromium.js';
import { type CountingEmulator, startCountingEmulator } from './support/counting-emulator.js';
import { type StaticSite, startStaticSite } from './support/static-site.js';

// The README's snippet, word for word, on a shop page: when it fetches the element, and that the
// sentence then moves nothing.

const SETTLE_MS = 500;
const SENTENCE = '23 people are browsing this shop right now';

let browser: Browser;
let site: StaticSite;
let service: CountingEmulator;

beforeAll(async () => {
  [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startCountingEmulator()]);
  service.setVisitors('demo-shop', 23);
  const { script, elementStyle } = readmeSnippet('/live-visitors.js');
  site.put(
    '/offer.html',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
     <meta name="viewport" content="width=device-width, initial-scale=1">
     <style>body { font: 17px/1.5 sans-serif; margin: 0 20px; }</style>${script}</head>
     <body><h1>Winter sale</h1><p class="offer">−30% today only, 4 left in stock.</p>
     <live-visitors website-id="demo-shop" token="demo-token" api-base="${service.url}" style="${elementStyle}"></live-visitors>
     <button>Add to cart</button><p>Free returns within 30 days.</p></body></html>`,
  );
});

afterAll(async () => {
  await Promise.all([browser?.close(), site?.close(), service?.close()]);
});

/** When the page's load event began and when the element's file was requested, by the page's clock. */
function loadAndBundleTimes(page: Page) {
  return page.evaluate(() => {
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const bundle = performance.getEntriesByType('resource').find((entry) => entry.name.endsWith('/live-visitors.js'));
    return { load: navigation.loadEventStart, bundle: bundle?.startTime ?? null };
  });
}

/** A shopper's tab; on a phone-wide screen (360 px) the sentence takes two lines. */
async function openShop(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.addInitScript(() => {
    const shifts: number[] = [];
    (window as unknown as { shifts: number[] }).shifts = shifts;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) shifts.push((entry as unknown as { value: number }).value);
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await page.goto(`${site.url}/offer.html`);
  return { page, errors };
}

const sentence = (page: Page) => page.locator('live-visitors [part="text"]');
const shifts = (page: Page) => page.evaluate(() => (window as unknown as { shifts: number[] }).shifts);

it(`on a first visit, fetches the element only ${SETTLE_MS} ms after the load event; the sentence then wraps onto the kept lines and moves nothing`, async () => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const { page, errors } = await openShop(context);
  await expect.poll(() => sentence(page).textContent(), { timeout: 10_000 }).toBe(SENTENCE);
  const { load, bundle } = await loadAndBundleTimes(page);
  expect(bundle).not.toBeNull();
  expect(bundle! - load).toBeGreaterThanOrEqual(SETTLE_MS - 1);
  // Two lines at this width: the case one kept line would not cover.
  const lines = await page
    .locator('live-visitors')
    .evaluate((element) => element.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(element).lineHeight));
  expect(Math.round(lines)).toBe(2);
  expect(await shifts(page)).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
});

it('for a returning shopper (a count stored), fetches the element at once, before the load event, and shows the stored count without asking the service', async () => {
  const context = await browser.newContext();
  const { page } = await openShop(context);
  await expect.poll(() => sentence(page).textContent(), { timeout: 10_000 }).toBe(SENTENCE);
  const requestsBefore = service.realtimeRequests;
  await page.reload();
  await expect.poll(() => sentence(page).textContent(), { timeout: 10_000 }).toBe(SENTENCE);
  const { load, bundle } = await loadAndBundleTimes(page);
  expect(bundle).not.toBeNull();
  expect(bundle!).toBeLessThan(load);
  expect(service.realtimeRequests).toBe(requestsBefore);
  expect(await shifts(page)).toEqual([]);
  await context.close();
});

it('with storage blocked (localStorage throws), waits as on a first visit and still shows the count, with no error', async () => {
  const context = await browser.newContext();
  await context.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', {
      get() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    });
  });
  const { page, errors } = await openShop(context);
  await expect.poll(() => sentence(page).textContent(), { timeout: 10_000 }).toBe(SENTENCE);
  const { load, bundle } = await loadAndBundleTimes(page);
  expect(bundle! - load).toBeGreaterThanOrEqual(SETTLE_MS - 1);
  expect(errors).toEqual([]);
  await context.close();
});
