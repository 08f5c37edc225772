import { readCappedBytes } from '../../../server-kit/capped-body.js';
import type { Registrations } from '../registry/registrations.js';
import { type AppSecret, base64Bytes } from './app-secret.js';
import { jsonResponse } from './json-response.js';
import { SHOPIFY_SHOP_SYNTAX } from './shop-domain.js';

/** The topics shopify.app.toml subscribes to. */
export const WEBHOOK_TOPICS = ['app/uninstalled', 'shop/redact', 'customers/data_request', 'customers/redact'] as const;

/** Shopify's payloads for these topics are a few kilobytes; a bigger body is not one of them. */
const MAX_WEBHOOK_BYTES = 256 * 1024;

/**
 * `POST /shopify/webhooks`. The raw body's HMAC (`X-Shopify-Hmac-Sha256`, base64, with the client
 * secret) is checked in constant time before a byte of it is read as JSON. `app/uninstalled` and
 * `shop/redact` delete the shop's website and token (again and again if Shopify retries); the
 * customer topics have nothing to delete or report: the app stores no customer data.
 */
export async function answerWebhook(
  request: Request,
  secret: AppSecret,
  registrations: Pick<Registrations, 'removeShop'>,
): Promise<Response> {
  if (request.method !== 'POST') return jsonResponse(405, { error: 'Webhooks are POSTed by Shopify' }, { Allow: 'POST' });
  const signature = base64Bytes(request.headers.get('x-shopify-hmac-sha256') ?? '', 'base64', 32);
  if (signature?.length !== 32) {
    await request.body?.cancel().catch(() => undefined);
    return jsonResponse(401, { error: 'Unsigned webhook: X-Shopify-Hmac-Sha256 must be the base64 HMAC-SHA256 of the body' });
  }
  const body = await readCappedBytes(request, MAX_WEBHOOK_BYTES).catch(() => undefined);
  if (body === undefined) return jsonResponse(413, { error: `Webhook body over ${MAX_WEBHOOK_BYTES} bytes, or cut short` });
  if (!(await secret.signed(signature, body))) {
    return jsonResponse(401, { error: "Invalid webhook signature: not signed with this app's client secret, or changed on the way" });
  }
  const topic = request.headers.get('x-shopify-topic') ?? '';
  const shop = request.headers.get('x-shopify-shop-domain') ?? '';
  if (!SHOPIFY_SHOP_SYNTAX.test(shop)) return jsonResponse(400, { error: 'X-Shopify-Shop-Domain must name a shop (name.myshopify.com)' });
  const named = shopNamedBy(body);
  if (named === undefined) return jsonResponse(400, { error: 'The webhook body is not a JSON object' });
  if (named !== null && named !== shop)
    return jsonResponse(400, { error: 'The webhook body names another shop than X-Shopify-Shop-Domain' });
  switch (topic) {
    case 'app/uninstalled':
    case 'shop/redact':
      try {
        await registrations.removeShop(shop);
      } catch {
        // Shopify retries a webhook that fails, for 48 hours: the deletion happens on a later try.
        return jsonResponse(503, { error: "The relay's store is unreachable; the shop's website will be deleted when Shopify retries" });
      }
      return jsonResponse(200, { deleted: "the shop's website and token" });
    case 'customers/data_request':
    case 'customers/redact':
      return jsonResponse(200, { stored: 'no customer data' });
    default:
      return jsonResponse(200, { ignored: 'a topic this app does not subscribe to' });
  }
}

/** The shop a signed body names (`shop_domain` in the compliance topics, `myshopify_domain` in the shop object), null for none, undefined when it is no JSON object. */
function shopNamedBy(body: Uint8Array): string | null | undefined {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  const named = fields.shop_domain ?? fields.myshopify_domain;
  return typeof named === 'string' ? named : null;
}
