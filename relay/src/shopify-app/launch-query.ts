import { type AppSecret, hexSignature, SIGNED_TIME_MAX_SKEW_SECONDS, signedTimeSkewSeconds } from './app-secret.js';
import { SHOPIFY_SHOP_SYNTAX } from './shop-domain.js';

export type LaunchVerdict = { readonly signed: true; readonly shop: string } | { readonly signed: false; readonly message: string };

/**
 * Shopify's admin opens an embedded app at its `application_url` with `shop`, `host`, `id_token`,
 * `timestamp` (and `embedded`, `locale`, `session`) and an `hmac` of them: every parameter but
 * `hmac`, sorted by name, percent-encoded and joined with `&`, signed HMAC-SHA256 (hex) with the
 * app's client secret. Only such a request, made within 90 s, gets the admin page.
 */
export async function verifyLaunchQuery(query: URLSearchParams, secret: AppSecret, wallClockMs: number): Promise<LaunchVerdict> {
  const hmacs = query.getAll('hmac');
  if (hmacs.length === 0) return refuse("Unsigned request: this page opens from the app in the shop's Shopify admin");
  const signature = hmacs.length === 1 ? hexSignature(hmacs[0]!) : null;
  if (signature === null) return refuse('Invalid admin request: expected one hex HMAC-SHA256 in hmac');
  if (new Set(query.keys()).size !== [...query.keys()].length) {
    return refuse('Invalid admin request: a parameter appears more than once, and Shopify signs each once');
  }
  const signed = [...query].filter(([name]) => name !== 'hmac').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Shopify percent-encodes a space as %20 where URLSearchParams writes `+` (a literal `+` is %2B).
  const message = new URLSearchParams(signed).toString().replaceAll('+', '%20');
  if (!(await secret.signed(signature, message))) {
    return refuse("Invalid admin request: not signed with this app's client secret, or changed on the way");
  }
  const skew = signedTimeSkewSeconds(query.get('timestamp') ?? undefined, wallClockMs);
  if (!(skew <= SIGNED_TIME_MAX_SKEW_SECONDS)) {
    return refuse(
      `Stale admin request: open the app again from the Shopify admin (signed requests are accepted within ${SIGNED_TIME_MAX_SKEW_SECONDS} s; check this server's clock)`,
    );
  }
  const shop = query.get('shop') ?? '';
  if (!SHOPIFY_SHOP_SYNTAX.test(shop)) return refuse('Invalid admin request: shop is not a shop domain (name.myshopify.com)');
  return { signed: true, shop };
}

function refuse(message: string): LaunchVerdict {
  return { signed: false, message };
}
