import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../../../test/browser/support/chromium.js';
import { copyShopifyAssets } from '../build.js';
import { renderBlock } from './support/shopify-liquid.js';
import { productPage, SHOP_DOMAIN, type Storefront, startStorefront, TOKEN, WEBSITE_ID } from './support/storefront.js';

let browser: Browser;
let shop: Storefront;

beforeAll(async () => {
  await copyShopifyAssets();
  [browser, shop] = await Promise.all([launchChromium(), startStorefront()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), shop?.close()]);
});

/** What a merchant typically sets: the website ID, a threshold, centred with the shop's accent colour. */
const TYPICAL = { website_id: WEBSITE_ID, min: 2, alignment: 'center', accent_color: '#0a7d32', text_color: '#222222' };

interface Visit {
  readonly page: Page;
  readonly errors: string[];
  readonly console: string[];
}

async function visit(html: string): Promise<Visit> {
  const page = await browser.newPage();
  const errors: string[] = [];
  const console: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => console.push(`${message.type()}: ${message.text()}`));
  await page.goto(shop.page(html));
  return { page, errors, console };
}

/** The sentence once the element shows a live count (the loader waits half a second after load). */
async function liveSentence(page: Page, selector = 'live-visitors'): Promise<string> {
  const element = page.locator(selector);
  await expect.poll(() => element.getAttribute('state')).toBe('live');
  return (await element.locator('[part="text"]').textContent()) ?? '';
}

it('the embed without a selector renders nothing, not even the script: on a theme with app blocks, the block loads it', async () => {
  expect((await renderBlock('live-visitors-embed.liquid', {}, { assetBase: shop.assetBase })).trim()).toBe('');
  expect((await renderBlock('live-visitors-embed.liquid', { website_id: WEBSITE_ID }, { assetBase: shop.assetBase })).trim()).toBe('');
});

it("a block without a website ID asks by the shop's domain and shows the count of the website the app saved for the shop; the editor says where it comes from", async () => {
  shop.emulator.setVisitors(WEBSITE_ID, 7);
  const context = { assetBase: shop.assetBase, shopDomain: SHOP_DOMAIN };
  const storefront = await renderBlock('live-visitors.liquid', {}, context);
  expect(storefront).toContain(`website-id="${SHOP_DOMAIN}"`);
  expect(storefront).not.toContain('live-visitors-notice');
  const { page, errors } = await visit(productPage({ block: storefront }));
  expect(await liveSentence(page)).toBe('7 people are browsing this shop right now');
  expect(shop.proxyAnswers.at(-1)).toBe(200);
  expect(await page.content()).not.toContain(TOKEN);
  expect(errors).toEqual([]);
  await page.close();
  const editor = await renderBlock('live-visitors.liquid', {}, { ...context, designMode: true });
  expect(editor).toContain('data-shopify-editor-block=');
  expect(editor).toMatch(/<p class="live-visitors-notice">Live visitors: shows the count of the website saved in the app/);
  // A website ID typed in the block wins, with no notice.
  expect(await renderBlock('live-visitors.liquid', { website_id: WEBSITE_ID }, { ...context, designMode: true })).not.toContain(
    'live-visitors-notice',
  );
});

it("a block with typical settings shows the emulator's count through the App Proxy and the relay, with no token in the page", async () => {
  shop.emulator.setVisitors(WEBSITE_ID, 7);
  const block = await renderBlock('live-visitors.liquid', TYPICAL, { assetBase: shop.assetBase });
  const { page, errors } = await visit(productPage({ block }));
  expect(await liveSentence(page)).toBe('7 people are browsing this shop right now');
  const element = page.locator('live-visitors');
  expect(await element.getAttribute('api-base')).toBe('/apps/live-visitors');
  expect(await element.evaluate((node) => getComputedStyle(node).textAlign)).toBe('center');
  expect(await element.evaluate((node) => getComputedStyle(node).getPropertyValue('--live-visitors-accent').trim())).toBe('#0a7d32');
  expect(shop.proxyAnswers.at(-1)).toBe(200);
  expect(shop.emulator.realtimeRequests).toBe(1);
  expect(await page.content()).not.toContain(TOKEN);
  expect(errors).toEqual([]);
  await page.close();
});

it('markup in the settings stays text: an attribute cannot be left, and no script or element of it runs', async () => {
  const hostile = '<img src=x onerror="window.__injected = 1">{count} "shoppers" & <b>friends</b>';
  const block = await renderBlock(
    'live-visitors.liquid',
    { ...TYPICAL, text: hostile, accent_color: '"><script>window.__injected = 2</script>' },
    {
      assetBase: shop.assetBase,
    },
  );
  expect(block).not.toContain('<img');
  expect(block).not.toContain('<script>window');
  const { page, errors } = await visit(productPage({ block }));
  expect(await liveSentence(page)).toBe(hostile.replace('{count}', '7'));
  expect(await page.evaluate(() => (window as { __injected?: number }).__injected)).toBeUndefined();
  expect(await page.locator('img, live-visitors img').count()).toBe(0);
  expect(errors).toEqual([]);
  await page.close();
});

it('a German storefront gets the German sentence, its language file fetched from the CDN by its flat name', async () => {
  const block = await renderBlock('live-visitors.liquid', TYPICAL, { assetBase: shop.assetBase, locale: 'de' });
  const { page, errors } = await visit(productPage({ lang: 'de', block }));
  expect(await liveSentence(page)).toBe('7 Personen sehen sich gerade in diesem Shop um');
  expect(shop.assetRequests.some((path) => path.endsWith('/assets/live-visitors-lang-de.js'))).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});

it('the app embed places one element after the product form of a theme without app blocks, and shows the count', async () => {
  const head = await renderBlock(
    'live-visitors-embed.liquid',
    { ...TYPICAL, selector: 'form[action*="/cart/add"]', position: 'after' },
    { assetBase: shop.assetBase },
  );
  const { page, errors } = await visit(productPage({ head }));
  expect(await liveSentence(page, 'form + live-visitors')).toBe('7 people are browsing this shop right now');
  expect(await page.locator('live-visitors').count()).toBe(1);
  expect(await page.locator('head live-visitors, template').evaluateAll((nodes) => nodes.map((node) => node.tagName))).toEqual([
    'TEMPLATE',
  ]);
  expect(errors).toEqual([]);
  await page.close();
});

it('the embed and a block on one page load the script once', async () => {
  // An anchor this page lacks: the embed places nothing, and still loads the script.
  const head = await renderBlock('live-visitors-embed.liquid', { selector: '.no-such-anchor' }, { assetBase: shop.assetBase });
  const block = await renderBlock('live-visitors.liquid', TYPICAL, { assetBase: shop.assetBase });
  const { page, errors } = await visit(productPage({ head, block }));
  expect(await liveSentence(page)).toBe('7 people are browsing this shop right now');
  expect(await page.locator('script[src$="/live-visitors.js"]').count()).toBe(1);
  expect(errors).toEqual([]);
  await page.close();
});

it("the embed with a selector and no website ID places the count of the shop's saved website", async () => {
  const head = await renderBlock(
    'live-visitors-embed.liquid',
    { selector: 'form[action*="/cart/add"]', position: 'after' },
    { assetBase: shop.assetBase, shopDomain: SHOP_DOMAIN },
  );
  const { page, errors } = await visit(productPage({ head }));
  expect(await liveSentence(page, 'form + live-visitors')).toBe('7 people are browsing this shop right now');
  expect(await page.locator('live-visitors').getAttribute('website-id')).toBe(SHOP_DOMAIN);
  expect(errors).toEqual([]);
  await page.close();
});
