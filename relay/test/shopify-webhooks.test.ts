import { getHmac } from '@shopify/shopify-api/test-helpers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holds } from '../../test/support/properties.js';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { AppSecret } from '../src/shopify-app/app-secret.js';
import { answerWebhook } from '../src/shopify-app/webhooks.js';
import { CLIENT_SECRET, oracleAcceptsWebhook, SHOP } from './support/shopify-oracle.js';

/**
 * `POST /shopify/webhooks`, held to @shopify/shopify-api: bodies signed by its getHmac and judged
 * by its webhooks.validate (Web API adapter). The registrations here only record removeShop
 * calls: what a removal does to the store is the registry's own test.
 */
const secret = new AppSecret(CLIENT_SECRET);

function recordingRegistrations(fails = false) {
  const removed: string[] = [];
  return {
    removed,
    removeShop: async (shop: string) => {
      if (fails) throw new Error('store down');
      removed.push(shop);
    },
  };
}

/** The webhook answered with a fresh registrations store's memory of delivery ids (or `store`'s, to share it). */
function answer(request: Request, registrations: ReturnType<typeof recordingRegistrations>, store = new MemoryRegistrationStore()) {
  return answerWebhook(request, secret, registrations, (key, untilMs) => store.rememberOnce(key, untilMs, Date.now()));
}

function webhook(topic: string, body: string, headers: Record<string, string | null> = {}): Request {
  const all: Record<string, string | null> = {
    'Content-Type': 'application/json',
    'X-Shopify-Topic': topic,
    'X-Shopify-Shop-Domain': SHOP,
    'X-Shopify-Hmac-Sha256': getHmac(body, CLIENT_SECRET),
    'X-Shopify-API-Version': '2026-07',
    'X-Shopify-Webhook-Id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    ...headers,
  };
  return new Request('https://relay.example/shopify/webhooks', {
    method: 'POST',
    body,
    headers: Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== null)),
  });
}

const SHOP_REDACT = JSON.stringify({ shop_id: 954889, shop_domain: SHOP });
const UNINSTALLED = JSON.stringify({ id: 954889, name: 'Demo', myshopify_domain: SHOP, domain: 'demo.example' });
const CUSTOMERS_REDACT = JSON.stringify({
  shop_id: 954889,
  shop_domain: SHOP,
  customer: { id: 191167, email: 'john@example.com' },
  orders_to_redact: [1],
});

describe('webhooks, against @shopify/shopify-api', () => {
  it.each([
    ['app/uninstalled', UNINSTALLED],
    ['shop/redact', SHOP_REDACT],
  ])("%s, signed as the library signs, deletes the shop's website; its delivery sent again deletes nothing", async (topic, body) => {
    expect(await oracleAcceptsWebhook(webhook(topic, body), body)).toBe(true);
    const registrations = recordingRegistrations();
    const store = new MemoryRegistrationStore();
    const answers = [];
    for (let attempt = 0; attempt < 2; attempt += 1) answers.push(await (await answer(webhook(topic, body), registrations, store)).json());
    expect(answers).toEqual([{ deleted: "the shop's website and token" }, { ignored: 'this delivery was acted on already' }]);
    expect(registrations.removed).toEqual([SHOP]);
    // Another delivery (a new install uninstalled again) acts.
    await answer(webhook(topic, body, { 'X-Shopify-Webhook-Id': 'a0f5a7e2-0000-4b37-8a5f-bf7d70bcd043' }), registrations, store);
    expect(registrations.removed).toEqual([SHOP, SHOP]);
  });

  it.each([
    [
      'customers/data_request',
      JSON.stringify({ shop_id: 954889, shop_domain: SHOP, customer: { id: 191167 }, data_request: { id: 9999 } }),
    ],
    ['customers/redact', CUSTOMERS_REDACT],
  ])('%s answers 200 and deletes nothing: no customer data is stored', async (topic, body) => {
    const registrations = recordingRegistrations();
    const response = await answer(webhook(topic, body), registrations);
    expect([response.status, await response.json()]).toEqual([200, { stored: 'no customer data' }]);
    expect(registrations.removed).toEqual([]);
  });

  it.each([
    ['no HMAC', SHOP_REDACT, { 'X-Shopify-Hmac-Sha256': null }],
    ['an HMAC with another secret', SHOP_REDACT, { 'X-Shopify-Hmac-Sha256': getHmac(SHOP_REDACT, 'another-secret') }],
    ['an HMAC of another body', SHOP_REDACT, { 'X-Shopify-Hmac-Sha256': getHmac(UNINSTALLED, CLIENT_SECRET) }],
    [
      'an HMAC in hex',
      SHOP_REDACT,
      { 'X-Shopify-Hmac-Sha256': Buffer.from(getHmac(SHOP_REDACT, CLIENT_SECRET), 'base64').toString('hex') },
    ],
    ['an HMAC cut short', SHOP_REDACT, { 'X-Shopify-Hmac-Sha256': getHmac(SHOP_REDACT, CLIENT_SECRET).slice(0, 20) }],
  ])('a webhook with %s is refused with 401 (the library refuses it too), and nothing is deleted', async (_name, body, headers) => {
    expect(await oracleAcceptsWebhook(webhook('shop/redact', body, headers), body)).toBe(false);
    const registrations = recordingRegistrations();
    const response = await answer(webhook('shop/redact', body, headers), registrations);
    expect(response.status).toBe(401);
    expect((await response.json()).error).toMatch(/webhook/i);
    expect(registrations.removed).toEqual([]);
  });

  // Issue 35 finding 10: only the body is signed; the topic header is not.
  const DATA_REQUEST = JSON.stringify({
    shop_id: 954889,
    shop_domain: SHOP,
    orders_requested: [299938],
    customer: { id: 191167, email: 'john@example.com' },
    data_request: { id: 9999 },
  });
  it.each([
    ['customers/data_request', 'app/uninstalled', DATA_REQUEST],
    ['customers/data_request', 'shop/redact', DATA_REQUEST],
    ['customers/redact', 'shop/redact', CUSTOMERS_REDACT],
    ['shop/redact', 'app/uninstalled', SHOP_REDACT],
    ['app/uninstalled', 'shop/redact', UNINSTALLED],
  ])('a signed %s body sent as %s is refused with 400 and deletes nothing', async (_signedAs, sentAs, body) => {
    expect(await oracleAcceptsWebhook(webhook(sentAs, body), body)).toBe(true);
    const registrations = recordingRegistrations();
    const response = await answer(webhook(sentAs, body), registrations);
    expect([response.status, (await response.json()).error]).toEqual([400, `The webhook body is not a ${sentAs} payload`]);
    expect(registrations.removed).toEqual([]);
  });

  it('a delivery without its X-Shopify-Webhook-Id is refused with 400 and deletes nothing', async () => {
    const registrations = recordingRegistrations();
    const response = await answer(webhook('app/uninstalled', UNINSTALLED, { 'X-Shopify-Webhook-Id': null }), registrations);
    expect([response.status, (await response.json()).error]).toEqual([400, expect.stringMatching(/X-Shopify-Webhook-Id/)]);
    expect(registrations.removed).toEqual([]);
  });

  it('checks the HMAC before reading the body as JSON: an unsigned body that is not JSON is a 401, a signed one a 400', async () => {
    const notJson = '{"shop_domain": ';
    const unsigned = await answer(
      webhook('shop/redact', notJson, { 'X-Shopify-Hmac-Sha256': getHmac('{}', CLIENT_SECRET) }),
      recordingRegistrations(),
    );
    expect(unsigned.status).toBe(401);
    const signed = await answer(webhook('shop/redact', notJson), recordingRegistrations());
    expect(signed.status).toBe(400);
  });

  it.each([
    ['a header naming no shop', SHOP_REDACT, { 'X-Shopify-Shop-Domain': 'demo.example' }, 400, /X-Shopify-Shop-Domain/],
    ['a body naming another shop', JSON.stringify({ shop_domain: 'other.myshopify.com' }), {}, 400, /another shop/],
    ['a body that is an array', '[]', {}, 400, /not a JSON object/],
  ])('a signed webhook with %s deletes nothing', async (_name, body, headers, status, message) => {
    const registrations = recordingRegistrations();
    const response = await answer(webhook('shop/redact', body, headers), registrations);
    expect(response.status).toBe(status);
    expect((await response.json()).error).toMatch(message);
    expect(registrations.removed).toEqual([]);
  });

  it('a body over 256 KiB is refused unread, a GET is a 405, and a store that is down is a 503 Shopify retries', async () => {
    const big = JSON.stringify({ shop_domain: SHOP, padding: 'x'.repeat(300_000) });
    expect((await answer(webhook('shop/redact', big), recordingRegistrations())).status).toBe(413);
    expect((await answer(new Request('https://relay.example/shopify/webhooks'), recordingRegistrations())).status).toBe(405);
    expect((await answer(webhook('shop/redact', SHOP_REDACT), recordingRegistrations(true))).status).toBe(503);
  });

  it('for any body and any HMAC header: accepted exactly when the library accepts it, and never throws', async () => {
    await holds(
      fc.asyncProperty(
        fc.string({ maxLength: 200 }),
        fc.oneof(fc.constant('sign'), fc.string({ maxLength: 60 }), fc.base64String({ maxLength: 60 })),
        async (text, hmac) => {
          const body = JSON.stringify({ shop_domain: SHOP, customer: { id: 1 }, note: text });
          const header = hmac === 'sign' ? getHmac(body, CLIENT_SECRET) : hmac;
          const oracle = await oracleAcceptsWebhook(webhook('customers/redact', body, { 'X-Shopify-Hmac-Sha256': header }), body);
          const response = await answer(webhook('customers/redact', body, { 'X-Shopify-Hmac-Sha256': header }), recordingRegistrations());
          expect(response.status === 200).toBe(oracle);
          if (!oracle) expect(response.status).toBe(401);
        },
      ),
      200,
    );
  });
});
