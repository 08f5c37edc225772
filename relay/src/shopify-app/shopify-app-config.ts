import { describeValue, isPlainObject, reportUnknownFields } from '../../../server-kit/config-checks.js';

/** The public Shopify app's settings in the relay's config: `"shopifyApp": { "clientId": "…" }`. */
export interface ShopifyAppConfig {
  /** The app's client id (its API key, not a secret), as the Partner or Dev Dashboard shows it. */
  readonly clientId: string;
}

const CLIENT_ID_SYNTAX = /^[\x21-\x7e]{1,256}$/;

/** `shopifyApp`, checked: null when absent; its problems, naming the field, in `issues`. */
export function readShopifyApp(value: unknown, at: string, issues: string[]): ShopifyAppConfig | null | undefined {
  if (value === null || value === undefined) return null;
  if (!isPlainObject(value)) {
    issues.push(`${at} must be an object like { "clientId": "…" } (got ${describeValue(value)})`);
    return undefined;
  }
  reportUnknownFields(value, ['clientId'], `${at}.`, issues);
  if (typeof value.clientId !== 'string' || !CLIENT_ID_SYNTAX.test(value.clientId)) {
    issues.push(
      `${at}.clientId must be the app's client id from the Partner or Dev Dashboard (printable, no spaces; got ${describeValue(value.clientId)})`,
    );
    return undefined;
  }
  return Object.freeze({ clientId: value.clientId });
}

/** What the app needs beside its client id: the secret that signs everything Shopify sends, and websites registered at run time. */
export function checkShopifyApp(
  shopifyApp: ShopifyAppConfig | null,
  shopifyAppSecret: string | null,
  selfServe: boolean,
  issues: string[],
): void {
  if (shopifyApp === null) return;
  if (shopifyAppSecret === null) {
    issues.push(
      "shopifyApp needs shopifyAppSecret (or LIVE_VISITORS_SHOPIFY_APP_SECRET): the app's client secret, which signs the admin's requests, session tokens and webhooks",
    );
  }
  if (!selfServe) {
    issues.push('shopifyApp needs selfServe: true, since merchants register their websites from the app at run time');
  }
}
