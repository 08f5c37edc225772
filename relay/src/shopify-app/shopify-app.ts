import { parseReport, windowOf } from '../../../src/contract/report.js';
import type { RegistrationStore } from '../registry/registration-store.js';
import type { Registrations } from '../registry/registrations.js';
import type { WebsiteCache } from '../website-cache.js';
import { adminPageResponse } from './admin-page.js';
import { ADMIN_PAGE_SCRIPT } from './admin-page-script.js';
import { AppSecret } from './app-secret.js';
import { jsonResponse } from './json-response.js';
import { verifyLaunchQuery } from './launch-query.js';
import { SessionTokenVerifier } from './session-token.js';
import { answerSettings, type LiveCount } from './settings-api.js';
import { answerWebhook } from './webhooks.js';

/** Where Shopify's admin opens the app (shopify.app.toml's application_url). */
export const SHOPIFY_APP_PATH = '/shopify/app';
/** Where Shopify sends the app's webhooks (shopify.app.toml's uri). */
export const SHOPIFY_WEBHOOKS_PATH = '/shopify/webhooks';

export interface ShopifyAppOptions {
  /** The app's client id (its API key), as the Partner or Dev Dashboard shows it. */
  readonly clientId: string;
  /** The app's client secret: it signs the admin's launch, the session tokens and the webhooks. */
  readonly clientSecret: string;
  readonly registrations: Registrations;
  /** Where a write spends its session token's `jti`, and a webhook its delivery id (the registrations' store: the fleet's, when shared). */
  readonly usedSessionTokens: Pick<RegistrationStore, 'rememberOnce'>;
  /** The cache that serves a registered website to shoppers (undefined when none), so the admin page shows the count they get. */
  readonly cacheOf: (websiteId: string) => WebsiteCache | null | undefined;
  /** Milliseconds since the epoch, to judge signed times; `Date.now` when absent. */
  readonly wallClock?: () => number;
}

/** Answers a request for the Shopify app, or undefined when the path is not the app's. */
export type ShopifyAppHandler = (request: Request, pathname: string) => Promise<Response> | undefined;

/**
 * The Shopify app a merchant installs: its embedded admin page, the page's settings API and the
 * app's webhooks. The theme app extension and the App Proxy (shopify-app-proxy.ts) serve shoppers;
 * these serve the merchant and Shopify.
 */
export function createShopifyApp(options: ShopifyAppOptions): ShopifyAppHandler {
  const wallClock = options.wallClock ?? Date.now;
  const secret = new AppSecret(options.clientSecret);
  const sessionTokens = new SessionTokenVerifier(options.clientId, secret, wallClock);
  const liveCount = async (websiteId: string): Promise<LiveCount> => {
    const cache = options.cacheOf(websiteId);
    if (!cache) return { error: 'the relay cannot serve this website yet; save it again' };
    const result = await cache.current();
    if (result.kind === 'unavailable') return { error: result.message };
    const report = parseReport(JSON.parse(result.answer.body), websiteId);
    if (typeof report === 'string') return { error: `the stored answer is not a report (${report})` };
    return { count: report.currentVisitors, timestamp: report.timestamp, windowMinutes: windowOf(report) };
  };
  const settings = {
    sessionTokens,
    registrations: options.registrations,
    liveCount,
    spendSessionToken: (tokenId: string, untilMs: number) =>
      options.usedSessionTokens.rememberOnce(`shopify-session-token:${tokenId}`, untilMs, wallClock()),
  };

  const rememberWebhook = (key: string, untilMs: number) => options.usedSessionTokens.rememberOnce(key, untilMs, wallClock());

  async function adminPage(request: Request): Promise<Response> {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return jsonResponse(405, { error: 'The admin page answers GET' }, { Allow: 'GET' });
    const verdict = await verifyLaunchQuery(new URL(request.url).searchParams, secret, wallClock());
    if (!verdict.signed) return jsonResponse(401, { error: verdict.message });
    return adminPageResponse({ clientId: options.clientId, shop: verdict.shop, pagePath: SHOPIFY_APP_PATH });
  }

  return (request, pathname) => {
    switch (pathname) {
      case SHOPIFY_APP_PATH:
        return adminPage(request);
      case `${SHOPIFY_APP_PATH}/settings`:
        return answerSettings(request, settings);
      case `${SHOPIFY_APP_PATH}/admin.js`:
        return Promise.resolve(
          new Response(ADMIN_PAGE_SCRIPT, {
            headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' },
          }),
        );
      case SHOPIFY_WEBHOOKS_PATH:
        return answerWebhook(request, secret, options.registrations, rememberWebhook, wallClock);
      default:
        return undefined;
    }
  };
}
