import { createHmac, randomUUID } from 'node:crypto';
import { getJwt } from '@shopify/shopify-api/test-helpers';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APP_BRIDGE_URL } from '../../../relay/src/shopify-app/admin-page.js';
import { policyViolations } from '../../../relay/test/support/policy-violations.js';
import type { RelayHarness } from '../../../relay/test/support/relay-harness.js';
import { routeToRelay } from '../../../relay/test/support/route-to-relay.js';
import { startShopifyAppRelay } from '../../../relay/test/support/shopify-app-relay.js';
import { CLIENT_ID, CLIENT_SECRET } from '../../../relay/test/support/shopify-oracle.js';
import { launchChromium } from '../../../test/browser/support/chromium.js';

/**
 * The app's embedded admin page in Chromium, served by the real relay (self-serving, with the
 * emulator as the service) at https://relay.example (routed to it, so the page is a secure
 * context as in Shopify's admin). What is not run here: Shopify's admin itself, App Bridge and
 * Polaris from Shopify's CDN. App Bridge is a stand-in at its documented URL, giving
 * `shopify.idToken()` session tokens signed by @shopify/shopify-api's helper for the shop.
 */
const RELAY = 'https://relay.example';
const SHOP = 'demo-shop.myshopify.com';
// The emulator knows this website; only the app registers it on the relay.
const OWNED = { id: 'not-relayed', token: 'tokC-SECRET-0000' } as const;

let browser: Browser;
let relay: RelayHarness;
let context: BrowserContext;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await context?.close();
  await relay?.close();
});

async function start(): Promise<Page> {
  relay = await startShopifyAppRelay();
  context = await browser.newContext();
  await routeToRelay(context, RELAY, () => relay.relayUrl);
  // App Bridge's stand-in: only the documented shopify.idToken(), answered by Node. Shopify does not
  // promise a new token per call, so from the second call on each token is handed out twice: the
  // save after a refused one finds its token spent, and the page must ask again (issue 31's replay).
  let calls = 0;
  let token = '';
  await context.exposeBinding('mintSessionToken', async () => {
    calls += 1;
    if (calls === 1 || calls % 2 === 0) token = (await getJwt('demo-shop', CLIENT_ID, CLIENT_SECRET, { jti: randomUUID() })).token;
    return token;
  });
  await context.route(APP_BRIDGE_URL, (route) =>
    route.fulfill({ contentType: 'text/javascript', body: 'window.shopify = { idToken: () => window.mintSessionToken() };' }),
  );
  const page = await context.newPage();
  return page;
}

/** The URL Shopify's admin opens the app at: its parameters and their HMAC. */
function launchUrl(): string {
  const parameters = {
    embedded: '1',
    host: 'YWRtaW4uc2hvcGlmeS5jb20vc3RvcmUvZGVtby1zaG9w',
    locale: 'en',
    shop: SHOP,
    timestamp: String(Math.floor(Date.now() / 1000)),
  };
  const sorted = new URLSearchParams(Object.entries(parameters).sort(([a], [b]) => (a < b ? -1 : 1)));
  return `${RELAY}/shopify/app?${sorted}&hmac=${createHmac('sha256', CLIENT_SECRET).update(sorted.toString()).digest('hex')}`;
}

describe('the embedded admin page in Chromium', () => {
  it('has App Bridge as Shopify requires it, saves once, keeps the token write-only, shows the live count and the deep links', async () => {
    const page = await start();
    const violations = policyViolations(page);
    await page.goto(launchUrl());
    // The shopify-api-key meta and App Bridge's script are the first things in <head>.
    const head = await page.evaluate(() => [...document.head.children].slice(0, 2).map((element) => element.outerHTML));
    expect(head).toEqual([
      `<meta name="shopify-api-key" content="${CLIENT_ID}">`,
      `<script src="${'https://cdn.shopify.com/shopifycloud/app-bridge.js'}"></script>`,
    ]);
    await expect.poll(() => page.evaluate(() => document.querySelector('#status')?.getAttribute('data-state'))).toBe('ok');

    await page.fill('#website-id', OWNED.id);
    await page.fill('#token', 'wrong-token-1234');
    await page.click('button[type=submit]');
    await expect.poll(() => page.getAttribute('#status', 'data-state')).toBe('error');
    expect(await page.textContent('#status')).toMatch(/token/i);
    expect(await page.isHidden('#next')).toBe(true);

    await page.fill('#token', OWNED.token);
    await page.click('button[type=submit]');
    await expect
      .poll(() => page.textContent('#status'))
      .toMatch(/^Saved\. Live now: \d+ (person|people) on your shop in the last 3 minutes/);
    expect(await page.inputValue('#token')).toBe('');
    expect(await page.textContent('#token-saved strong')).toBe('0000');
    const links = await page.$$eval('#next a', (anchors) =>
      anchors.map((anchor) => [anchor.getAttribute('href'), anchor.getAttribute('target')]),
    );
    expect(links).toEqual([
      [`https://${SHOP}/admin/themes/current/editor?template=product&addAppBlockId=${CLIENT_ID}/live-visitors&target=mainSection`, '_top'],
      [`https://${SHOP}/admin/themes/current/editor?context=apps&template=product&activateAppId=${CLIENT_ID}/live-visitors-embed`, '_top'],
    ]);
    expect(await page.isVisible('#next')).toBe(true);

    // After saving, the token is nowhere: not in the page, its URL, its storage or cookies.
    const traces = await page.evaluate(() => [
      document.documentElement.outerHTML,
      location.href,
      JSON.stringify(localStorage),
      JSON.stringify(sessionStorage),
      document.cookie,
    ]);
    for (const trace of traces) expect(trace).not.toContain(OWNED.token);
    expect(violations).toEqual([]);

    // Opened again from the admin: the saved website, the token's last four, the count.
    await page.goto(launchUrl());
    await expect.poll(() => page.textContent('#status')).toMatch(/^Live now: \d+/);
    expect([await page.inputValue('#website-id'), await page.inputValue('#token'), await page.textContent('#token-saved strong')]).toEqual([
      OWNED.id,
      '',
      '0000',
    ]);
    expect(relay.upstreamCalls.length).toBeLessThanOrEqual(2);
  });

  it('says in words when App Bridge did not load (the page opened outside the admin)', async () => {
    const page = await start();
    await context.unroute(APP_BRIDGE_URL);
    await context.route(APP_BRIDGE_URL, (route) => route.abort());
    await page.goto(launchUrl());
    await expect.poll(() => page.textContent('#status')).toMatch(/Open this page from the app in your Shopify admin/);
  });

  it("may be framed by the shop's admin, not by another site", async () => {
    const page = await start();
    const framing = () => `<!doctype html><iframe src="${launchUrl()}"></iframe>`;
    await context.route('https://admin.shopify.com/**', (route) => route.fulfill({ contentType: 'text/html', body: framing() }));
    await context.route('https://evil.example/**', (route) => route.fulfill({ contentType: 'text/html', body: framing() }));
    const formIn = async (url: string) => {
      await page.goto(url);
      const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
      await page.waitForTimeout(300);
      return frame ? frame.evaluate(() => document.querySelector('form') !== null).catch(() => false) : false;
    };
    expect(await formIn('https://admin.shopify.com/store/demo-shop/apps/live-visitors')).toBe(true);
    expect(await formIn('https://evil.example/')).toBe(false);
  });
});
