import rules from '../../src/contract/rules.json' with { type: 'json' };
import { AppSecret, hexSignature, SIGNED_TIME_MAX_SKEW_SECONDS, signedTimeSkewSeconds } from './shopify-app/app-secret.js';
import { SHOPIFY_SHOP_SYNTAX } from './shopify-app/shop-domain.js';

/**
 * Shopify's App Proxy forwards `https://{shop}/apps/live-visitors/…` to the relay and adds `shop`,
 * `timestamp`, `path_prefix`, `logged_in_customer_id` and a `signature` to the query. Only Web
 * Crypto here, so the same check runs on Node, Workers, Deno, Bun and the edge runtimes.
 */

export type AppProxyRefusal = 'unsigned' | 'forged' | 'stale';

export type AppProxyVerdict =
  | { readonly signed: true; readonly shop: string }
  | { readonly signed: false; readonly reason: AppProxyRefusal; readonly message: string };

/**
 * The text Shopify signs: every parameter but `signature`, each as `key=value` with the values of a
 * repeated key joined by commas (decoded, in their order), the pairs sorted and concatenated with
 * nothing between them.
 */
export function appProxySignedText(query: URLSearchParams): string {
  const values = new Map<string, string[]>();
  for (const [key, value] of query) {
    if (key === 'signature') continue;
    const list = values.get(key);
    if (list) list.push(value);
    else values.set(key, [value]);
  }
  return [...values]
    .map(([key, list]) => `${key}=${list.join(',')}`)
    .sort()
    .join('');
}

/** Checks App Proxy signatures with one app's secret; the key is imported once, on first use. */
export class AppProxyVerifier {
  readonly #secret: AppSecret;
  readonly #wallClock: () => number;

  /** `wallClock`: milliseconds since the epoch, to judge the signed `timestamp` against. */
  constructor(secret: string, wallClock: () => number = Date.now) {
    this.#secret = new AppSecret(secret);
    this.#wallClock = wallClock;
  }

  /** Whether Shopify signed this query with the app's secret, recently; never throws. */
  async verify(query: URLSearchParams): Promise<AppProxyVerdict> {
    const signatures = query.getAll('signature');
    if (signatures.length === 0) {
      return refuse('unsigned', rules.messageUnsignedAppProxy);
    }
    const signature = signatures.length === 1 ? hexSignature(signatures[0]!) : null;
    if (signature === null) return refuse('forged', 'Invalid App Proxy signature: expected one hex HMAC-SHA256');
    const signedText = appProxySignedText(query);
    const matches = await this.#secret.signed(signature, signedText);
    if (!matches) {
      return refuse('forged', "Invalid App Proxy signature: not signed with this app's secret, or changed on the way");
    }
    // The signed pairs are joined with nothing between them, so one signed text reads as other
    // parameters too: only a text that can be read one way names the shop that signed.
    if ([...query.keys()].some((name) => name.includes('='))) {
      return refuse('forged', "Invalid App Proxy request: a parameter's name holds '=', which Shopify never sends");
    }
    const shops = query.getAll('shop');
    if (shops.length === 0) return refuse('forged', 'Invalid App Proxy request: it names no shop');
    if (shops.length > 1)
      return refuse('forged', `Invalid App Proxy request: it names ${shops.length} shops, and Shopify signs exactly one`);
    if (shops[0] === '') return refuse('forged', 'Invalid App Proxy request: its shop is empty');
    if (!SHOPIFY_SHOP_SYNTAX.test(shops[0]!))
      return refuse('forged', 'Invalid App Proxy request: its shop is not a name.myshopify.com domain');
    if (signedText.split('shop=').length > 2) {
      return refuse('forged', "Invalid App Proxy request: 'shop=' appears twice in what was signed, so it could be read as another shop's");
    }
    const timestamp = query.getAll('timestamp');
    if (timestamp.length > 1) {
      return refuse('forged', `Invalid App Proxy request: it carries ${timestamp.length} timestamps, and Shopify signs exactly one`);
    }
    const skew = signedTimeSkewSeconds(timestamp[0], this.#wallClock());
    if (!(skew <= SIGNED_TIME_MAX_SKEW_SECONDS)) {
      return refuse(
        'stale',
        `Stale App Proxy request: signed ${Number.isNaN(skew) ? 'at no valid time' : `${Math.round(skew)} s from now`}; accepted within ${SIGNED_TIME_MAX_SKEW_SECONDS} s (check this server's clock)`,
      );
    }
    return { signed: true, shop: shops[0]! };
  }
}

function refuse(reason: AppProxyRefusal, message: string): AppProxyVerdict {
  return { signed: false, reason, message };
}

/**
 * The shop's website answered under the name the block asked by: a block left without a website ID
 * asks by the shop's own domain (the website the merchant saved in the app), and the element
 * accepts only an answer for the id it asked for. Errors and answers without a body pass as they are.
 */
export async function answeredAs(response: Response, websiteId: string): Promise<Response> {
  if (response.status !== 200 || response.body === null) return response;
  const report = (await response.json()) as Record<string, unknown>;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify({ ...report, websiteId }), { status: 200, headers });
}
