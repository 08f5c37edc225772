// @vitest-environment node
import { createHmac, randomUUID } from 'node:crypto';
import { getJwt } from '@shopify/shopify-api/test-helpers';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../test/browser/support/chromium.js';
import { APP_BRIDGE_URL } from '../src/shopify-app/admin-page.js';
import type { RelayHarness } from './support/relay-harness.js';
import { routeToRelay } from './support/route-to-relay.js';
import { startShopifyAppRelay } from './support/shopify-app-relay.js';
import { CLIENT_ID, CLIENT_SECRET } from './support/shopify-oracle.js';

/**
 * The Shopify app's admin page offering the sources (issue 32 §5), in Chromium, served by the real
 * relay at https://relay.example (routed to it), with the emulator's Plausible stand-in as the
 * service. Not run: Shopify's admin, App Bridge's CDN (a stand-in gives `shopify.idToken()`
 * tokens signed by @shopify/shopify-api's helper), Plausible itself.
 */
const RELAY = 'https://relay.example';
const SHOP = 'demo-shop.myshopify.com';
const SITE = 'not-relayed';

let browser: Browser;
let relay: RelayHarness;
let context: BrowserContext;
let plausible: { base: string; siteId: string; apiKey: string };

beforeAll(async () => {
  [browser, relay] = await Promise.all([launchChromium(), startShopifyAppRelay()]);
  plausible = ((await (await fetch(`${relay.emulator.url}/__emulator/sources/${SITE}`)).json()) as { plausible: typeof plausible })
    .plausible;
});
afterAll(async () => {
  await context?.close();
  await Promise.all([browser?.close(), relay?.close()]);
});

async function adminPage(): Promise<Page> {
  context = await browser.newContext();
  await routeToRelay(context, RELAY, () => relay.relayUrl);
  await context.exposeBinding(
    'mintSessionToken',
    async () => (await getJwt('demo-shop', CLIENT_ID, CLIENT_SECRET, { jti: randomUUID() })).token,
  );
  await context.route(APP_BRIDGE_URL, (route) =>
    route.fulfill({ contentType: 'text/javascript', body: 'window.shopify = { idToken: () => window.mintSessionToken() };' }),
  );
  const parameters = {
    embedded: '1',
    host: 'YWRtaW4uc2hvcGlmeS5jb20vc3RvcmUvZGVtby1zaG9w',
    shop: SHOP,
    timestamp: String(Math.floor(Date.now() / 1000)),
  };
  const sorted = new URLSearchParams(Object.entries(parameters).sort(([a], [b]) => (a < b ? -1 : 1)));
  const page = await context.newPage();
  await page.goto(`${RELAY}/shopify/app?${sorted}&hmac=${createHmac('sha256', CLIENT_SECRET).update(sorted.toString()).digest('hex')}`);
  await expect.poll(() => page.getAttribute('#status', 'data-state')).toBe('ok');
  return page;
}

describe('the Shopify admin page with a source', () => {
  it('saves a Plausible source, says its 5-minute count, shows it again without its key, and keeps the key nowhere', async () => {
    const page = await adminPage();
    await page.fill('#website-id', 'demo-shop');
    await page.selectOption('#source-kind', 'plausible');
    expect(await page.isHidden('#token')).toBe(true);
    await page.fill('#source-plausible-siteId', plausible.siteId);
    await page.fill('#source-plausible-apiKey', plausible.apiKey);
    await page.fill('#source-plausible-base', plausible.base);
    await page.click('button[type=submit]');
    await expect
      .poll(() => page.textContent('#status'))
      .toMatch(/^Saved\. Live now: \d+ (person|people) on your shop in the last 5 minutes/);
    expect(await page.inputValue('#source-plausible-apiKey')).toBe('');
    const traces = await page.evaluate(() => [
      document.documentElement.outerHTML,
      location.href,
      JSON.stringify(localStorage),
      JSON.stringify(sessionStorage),
      document.cookie,
    ]);
    for (const trace of traces) expect(trace).not.toContain(plausible.apiKey);

    // Opened again: the source's kind and site, its key empty.
    await context.close();
    const again = await adminPage();
    await expect.poll(() => again.textContent('#status')).toMatch(/^Live now: \d+ .* in the last 5 minutes/);
    expect(await again.inputValue('#source-kind')).toBe('plausible');
    expect(await again.inputValue('#source-plausible-siteId')).toBe(plausible.siteId);
    expect(await again.inputValue('#source-plausible-apiKey')).toBe('');
    expect(await again.content()).not.toContain(plausible.apiKey);
  });
});
