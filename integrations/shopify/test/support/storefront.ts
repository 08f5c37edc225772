import { readFile } from 'node:fs/promises';
import { createRelay } from '../../../../relay/src/relay.js';
import { shopifySignature } from '../../../../relay/test/support/shopify-app-proxy-signing.js';
import { type CountingEmulator, startCountingEmulator } from '../../../../test/browser/support/counting-emulator.js';
import { serveOnLoopback } from '../../../../test/browser/support/loopback-server.js';
import { SHOPIFY_ASSETS } from '../../build.js';

export const SHOP_DOMAIN = 'shop-a.myshopify.com';
export const WEBSITE_ID = 'shop-a';
/** Distinctive, so finding it in a page can only mean a leak. */
export const TOKEN = 'tokShop-SECRET-51c0ffee';
const APP_SECRET = 'shpss_storefront_test_secret';
const PROXY_PREFIX = '/apps/live-visitors';
const ASSET_PATH = '/extensions/0c4e8b1a-live-visitors/0.0.1/assets';

/**
 * A storefront as Shopify serves it, on loopback: the shop's pages on one origin; the extension's
 * assets on another (the CDN, with the CORS header a module script from there needs); the shop's
 * `/apps/live-visitors/*` forwarded to the relay as the App Proxy documents it (prefix replaced by
 * the proxy URL, `shop`, `logged_in_customer_id`, `path_prefix` and `timestamp` added, signed with
 * the app's secret); and the relay in front of the counting emulator.
 */
export interface Storefront {
  readonly shopUrl: string;
  /** What `asset_url` returns for a file name, without the name. */
  readonly assetBase: string;
  readonly emulator: CountingEmulator;
  /** Paths the CDN was asked for. */
  readonly assetRequests: string[];
  /** Status of each answer the relay gave through the App Proxy. */
  readonly proxyAnswers: number[];
  /** Serves `html` at `/products/widget` and returns that page's URL. */
  page(html: string): string;
  close(): Promise<void>;
}

export async function startStorefront(): Promise<Storefront> {
  const emulator = await startCountingEmulator({ config: { websites: [{ id: WEBSITE_ID, token: TOKEN, plan: 'enterprise' }] } });
  const relay = createRelay({
    config: {
      upstream: emulator.url,
      websites: [{ id: WEBSITE_ID, token: TOKEN, shop: SHOP_DOMAIN }],
      shopifyAppSecret: APP_SECRET,
      hourlyBudget: 1_000,
    },
    log: () => undefined,
  });
  const relayServer = await serveOnLoopback(relay);
  const assetRequests: string[] = [];
  const cdn = await serveOnLoopback(async (request) => {
    const { pathname } = new URL(request.url);
    assetRequests.push(pathname);
    const name = pathname.startsWith(`${ASSET_PATH}/`) ? pathname.slice(ASSET_PATH.length + 1) : '';
    if (!/^[\w.-]+\.js$/.test(name)) return new Response('Not found', { status: 404 });
    try {
      const body = await readFile(new URL(name, SHOPIFY_ASSETS));
      return new Response(body, { headers: { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' } });
    } catch {
      return new Response('Not found', { status: 404 });
    }
  });
  const proxyAnswers: number[] = [];
  let html = '';
  const shop = await serveOnLoopback(async (request) => {
    const url = new URL(request.url);
    if (url.pathname === '/products/widget') return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    if (!url.pathname.startsWith(`${PROXY_PREFIX}/`)) return new Response('Not found', { status: 404 });
    const query = new URLSearchParams(url.search);
    query.append('shop', SHOP_DOMAIN);
    query.append('logged_in_customer_id', '');
    query.append('path_prefix', PROXY_PREFIX);
    query.append('timestamp', String(Math.floor(Date.now() / 1000)));
    query.append('signature', shopifySignature([...query], APP_SECRET));
    const answer = await fetch(`${relayServer.url}${url.pathname.slice(PROXY_PREFIX.length)}?${query}`);
    proxyAnswers.push(answer.status);
    // Shopify passes the answer on; it strips cookies, which the relay never sets.
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  return {
    shopUrl: shop.url,
    assetBase: `${cdn.url}${ASSET_PATH}`,
    emulator,
    assetRequests,
    proxyAnswers,
    page(next) {
      html = next;
      return `${shop.url}/products/widget`;
    },
    async close() {
      await Promise.all([shop.close(), cdn.close(), relayServer.close(), emulator.close()]);
    },
  };
}

/** A product page of a theme, with what the embed renders in `<head>` and a block in the product section. */
export function productPage(parts: { readonly lang?: string; readonly head?: string; readonly block?: string }): string {
  return `<!doctype html>
<html lang="${parts.lang ?? 'en'}">
<head><meta charset="utf-8"><title>Widget</title>${parts.head ?? ''}</head>
<body>
  <main>
    <section class="product">
      <h1>Widget</h1>
      <p class="price">€ 25</p>
      <form action="/cart/add" method="post"><button type="submit">Add to cart</button></form>
      ${parts.block ?? ''}
    </section>
  </main>
</body>
</html>`;
}
