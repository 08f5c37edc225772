import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { layoutShifts, recordLayoutShifts } from './support/layout-shifts.js';
import { shopFixtureForSuite } from './support/shop-fixture.js';

// Placement by the window.liveVisitors queue in real Chromium, against the built files and the
// emulator: a product form that a theme renders one second after load, and Tag Manager's way of
// adding the script (a classic script made by document.createElement).

const SENTENCE = '23 people are browsing this shop right now';
const ANCHOR_DELAY_MS = 1000;

const shop = shopFixtureForSuite();

/** A product page whose form the theme renders `ANCHOR_DELAY_MS` after load, in a box it reserved for it. */
function productPage(head: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
    <style>body { font: 17px/1.5 sans-serif; margin: 0 20px; } #product { min-height: 12em; }</style>${head}</head>
    <body><h1>Winter sale</h1><p>−30% today only, 4 left in stock.</p><div id="product"></div><p>Free returns within 30 days.</p>
    <script>
      addEventListener('load', () => setTimeout(() => {
        document.querySelector('#product').innerHTML = '<form class="product-form" action="/cart/add"><button>Add to cart</button></form>';
      }, ${ANCHOR_DELAY_MS}));
    </script></body></html>`;
}

/** The queue entry a page pushes, as page source. */
const placementFor = (apiBase: string, position = 'before') =>
  `{ selector: 'form[action*="/cart/add"]', position: '${position}', attributes: { 'website-id': 'demo-shop', token: 'demo-token', 'api-base': '${apiBase}' } }`;

async function open(path: string, html: string): Promise<{ page: Page; errors: string[]; requests: string[]; warnings: string[] }> {
  shop.site.put(path, html);
  const context = await shop.browser.newContext({ viewport: { width: 800, height: 700 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  const warnings: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(new URL(request.url()).pathname));
  page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
  await page.addInitScript(recordLayoutShifts);
  await page.goto(`${shop.site.url}${path}`);
  return { page, errors, requests, warnings };
}

it(`places the element by a form that appears ${ANCHOR_DELAY_MS / 1000} s after load, shows the count there, and moves nothing (CLS < 0.001)`, async () => {
  const head = `<script>window.liveVisitors = window.liveVisitors || []; liveVisitors.push(${placementFor(shop.service.url)});</script>
    <script type="module" src="/live-visitors.js"></script>`;
  const { page, errors, requests, warnings } = await open('/late-anchor.html', productPage(head));
  const sentence = page.locator('live-visitors [part="text"]');
  await expect.poll(() => sentence.textContent()).toBe(SENTENCE);
  // Beside the anchor, as asked, and only one.
  expect(await page.locator('live-visitors').count()).toBe(1);
  expect(await page.locator('live-visitors').evaluate((element) => element.nextElementSibling?.matches('form.product-form'))).toBe(true);
  const shifts = await layoutShifts(page);
  expect(shifts.reduce((sum, value) => sum + value, 0)).toBeLessThan(0.001);
  expect(requests.filter((path) => path === '/live-visitors-placement.js')).toHaveLength(1);
  expect([errors, warnings]).toEqual([[], []]);
  await page.context().close();
});

it('works when the classic loader is added by document.createElement, as Tag Manager does, and the entry is pushed after the element is defined', async () => {
  const head = `<script>
      const loader = document.createElement('script');
      loader.src = '/live-visitors-loader.js';
      document.head.appendChild(loader);
      customElements.whenDefined('live-visitors').then(() => {
        window.liveVisitors = window.liveVisitors || [];
        window.liveVisitors.push(${placementFor(shop.service.url, 'after')});
      });
    </script>`;
  const { page, errors, requests, warnings } = await open('/tag-manager.html', productPage(head));
  const sentence = page.locator('live-visitors [part="text"]');
  await expect.poll(() => sentence.textContent()).toBe(SENTENCE);
  expect(await page.locator('live-visitors').evaluate((element) => element.previousElementSibling?.matches('form.product-form'))).toBe(
    true,
  );
  // The loader, the bundle and the placement file, each once; other lazy files (experiments and
  // the like, as on any page once a count shows) are the lazy-files suite's business, but never twice.
  const files = requests.filter((path) => path.startsWith('/live-visitors'));
  expect(files).toEqual(expect.arrayContaining(['/live-visitors-loader.js', '/live-visitors-placement.js', '/live-visitors.js']));
  expect(files).toHaveLength(new Set(files).size);
  const shifts = await layoutShifts(page);
  expect(shifts.reduce((sum, value) => sum + value, 0)).toBeLessThan(0.001);
  expect([errors, warnings]).toEqual([[], []]);
  await page.context().close();
});

it('a page that places nothing never fetches the placement file', async () => {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
    <script type="module" src="/live-visitors.js"></script></head>
    <body><live-visitors website-id="demo-shop" token="demo-token" api-base="${shop.service.url}"></live-visitors></body></html>`;
  const { page, requests } = await open('/no-placement.html', html);
  await expect.poll(() => page.locator('live-visitors [part="text"]').textContent()).toBe(SENTENCE);
  expect(requests).not.toContain('/live-visitors-placement.js');
  await page.context().close();
});

it('a selector that is not CSS: one warning naming it in the console, nothing placed, nothing thrown', async () => {
  const head = `<script>window.liveVisitors = [{ selector: 'form[action*=', attributes: { 'website-id': 'demo-shop' } }];</script>
    <script type="module" src="/live-visitors.js"></script>`;
  const { page, errors, warnings } = await open('/bad-selector.html', productPage(head));
  await expect.poll(() => warnings.length).toBe(1);
  expect(warnings[0]).toContain('"form[action*="');
  await page.waitForTimeout(ANCHOR_DELAY_MS + 300);
  expect([await page.locator('live-visitors').count(), errors, warnings.length]).toEqual([0, [], 1]);
  await page.context().close();
});
