import { readCappedBytes } from '../../../server-kit/capped-body.js';
import type { Registrations } from '../registry/registrations.js';
import { type AppSecret, base64Bytes } from './app-secret.js';
import { jsonResponse } from './json-response.js';
import { SHOPIFY_SHOP_SYNTAX } from './shop-domain.js';

/** The topics shopify.app.toml subscribes to. */
export const WEBHOOK_TOPICS = ['app/uninstalled', 'shop/redact', 'customers/data_request', 'customers/redact'] as const;

/** Shopify's payloads for these topics are a few kilobytes; a bigger body is not one of them. */
const MAX_WEBHOOK_BYTES = 256 * 1024;

/** A webhook's delivery is acted on once: Shopify retries one for hours, and an old signed body can be sent again. */
const ONCE_MS = 24 * 60 * 60 * 1000;

/** Marks a key as seen until `untilMs`: true the first time, false while it is remembered (the registrations' store). */
export type RememberOnce = (key: string, untilMs: number) => Promise<boolean>;

/**
 * `POST /shopify/webhooks`. The raw body's HMAC (`X-Shopify-Hmac-Sha256`, base64, with the client
 * secret) is checked in constant time before a byte of it is read as JSON. `app/uninstalled` and
 * `shop/redact` delete the shop's website and token; the customer topics have nothing to delete or
 * report: the app stores no customer data. Only the body is signed, not the headers: a body acts
 * only under the topic whose shape it has (a signed `customers/data_request` body re-sent as
 * `app/uninstalled` deletes nothing), and each `X-Shopify-Webhook-Id` acts once in 24 hours.
 */
export async function answerWebhook(
  request: Request,
  secret: AppSecret,
  registrations: Pick<Registrations, 'removeShop'>,
  rememberOnce: RememberOnce,
  wallClock: () => number = Date.now,
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
  const webhookId = request.headers.get('x-shopify-webhook-id') ?? '';
  if (!/^[\w-]{1,128}$/.test(webhookId))
    return jsonResponse(400, { error: 'X-Shopify-Webhook-Id must name the delivery, as Shopify sends it' });
  const payload = readPayload(body);
  if (payload === undefined) return jsonResponse(400, { error: 'The webhook body is not a JSON object' });
  const named = payload.shop_domain ?? payload.myshopify_domain;
  if (named !== undefined && named !== shop)
    return jsonResponse(400, { error: 'The webhook body names another shop than X-Shopify-Shop-Domain' });
  if (!isWebhookTopic(topic)) return jsonResponse(200, { ignored: 'a topic this app does not subscribe to' });
  if (!FITS_TOPIC[topic](payload)) return jsonResponse(400, { error: `The webhook body is not a ${topic} payload` });
  if (topic === 'customers/data_request' || topic === 'customers/redact') return jsonResponse(200, { stored: 'no customer data' });
  const nowMs = wallClock();
  try {
    // Claimed before the deletion: a store that fails here fails the deletion too, and Shopify retries.
    if (!(await rememberOnce(`shopify-webhook:${webhookId}`, nowMs + ONCE_MS))) {
      return jsonResponse(200, { ignored: 'this delivery was acted on already' });
    }
    await registrations.removeShop(shop);
  } catch {
    // Shopify retries a webhook that fails, for 48 hours: the deletion happens on a later try.
    return jsonResponse(503, { error: "The relay's store is unreachable; the shop's website will be deleted when Shopify retries" });
  }
  return jsonResponse(200, { deleted: "the shop's website and token" });
}

type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

function isWebhookTopic(topic: string): topic is WebhookTopic {
  return (WEBHOOK_TOPICS as readonly string[]).includes(topic);
}

/** What each topic's payload is (shopify.dev, webhooks reference and privacy law compliance): a body of another topic is not taken for it. */
const FITS_TOPIC: Readonly<Record<WebhookTopic, (payload: Readonly<Record<string, unknown>>) => boolean>> = {
  // The Shop resource: its numeric id and myshopify_domain, none of the compliance topics' fields.
  'app/uninstalled': (payload) =>
    typeof payload.id === 'number' &&
    typeof payload.myshopify_domain === 'string' &&
    !('shop_domain' in payload) &&
    !('shop_id' in payload),
  // Exactly the shop's id and domain.
  'shop/redact': (payload) =>
    typeof payload.shop_id === 'number' &&
    typeof payload.shop_domain === 'string' &&
    Object.keys(payload).every((field) => field === 'shop_id' || field === 'shop_domain'),
  'customers/data_request': (payload) =>
    typeof payload.shop_domain === 'string' && isObject(payload.customer) && !('orders_to_redact' in payload),
  'customers/redact': (payload) =>
    typeof payload.shop_domain === 'string' && isObject(payload.customer) && !('orders_requested' in payload),
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A signed body as a JSON object; undefined when it is none. */
function readPayload(body: Uint8Array): Readonly<Record<string, unknown>> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(body));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
