import { createHmac, randomUUID } from 'node:crypto';
import { getHmac, getJwt } from '@shopify/shopify-api/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { answerText, type RelayHarness, startRelayHarness } from './support/relay-harness.js';
import { signedProxyQuery } from './support/shopify-app-proxy-signing.js';
import { CLIENT_ID, CLIENT_SECRET } from './support/shopify-oracle.js';

/**
 * The Shopify app end to end on the real relay (self-serving, registrations in memory) and the
 * emulator as the service: the settings API with session tokens signed by @shopify/shopify-api's
 * helper, the App Proxy serving the bound website, the webhooks deleting it. Shopify's admin,
 * App Bridge and the real App Proxy are not here: their requests are made as Shopify documents them.
 */
const KEYS = [`k1:${btoa('a'.repeat(32))}`];
// The emulator knows this website; the relay's config does not: only the app registers it.
const OWNED = { id: 'not-relayed', token: 'tokC-SECRET-0000' } as const;
const SHOP = 'demo-shop.myshopify.com';
const OTHER = 'other-shop.myshopify.com';

let harness: RelayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function app(): Promise<{ relay: RelayHarness; store: MemoryRegistrationStore }> {
  const store = new MemoryRegistrationStore();
  harness = await startRelayHarness({
    config: { selfServe: true, encryptionKeys: KEYS, shopifyAppSecret: CLIENT_SECRET, shopifyApp: { clientId: CLIENT_ID } },
    relay: { registrationStore: store },
  });
  return { relay: harness, store };
}

/** A session token as App Bridge hands one out: its own jti (the helper's default is one fixed value). */
async function bearer(shop: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const claims = { jti: randomUUID(), ...overrides };
  return `Bearer ${(await getJwt(shop.replace('.myshopify.com', ''), CLIENT_ID, CLIENT_SECRET, claims)).token}`;
}

function put(relay: RelayHarness, authorization: string, body: unknown) {
  return relay.request('/shopify/app/settings', {
    method: 'PUT',
    headers: { Authorization: authorization, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function settings(relay: RelayHarness, shop: string | null, method = 'GET', body?: unknown) {
  return relay.request('/shopify/app/settings', {
    method,
    headers: shop === null ? {} : { Authorization: await bearer(shop), 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function proxied(relay: RelayHarness, shop: string, websiteId: string = OWNED.id) {
  const query = signedProxyQuery({ websiteId, shop, secret: CLIENT_SECRET, timestampSeconds: Math.floor(Date.now() / 1000) });
  return relay.get(query);
}

function webhook(
  relay: RelayHarness,
  topic: string,
  shop: string,
  signWith = CLIENT_SECRET,
  body = JSON.stringify(topic === 'app/uninstalled' ? { id: 1, myshopify_domain: shop } : { shop_id: 1, shop_domain: shop }),
  webhookId: string = crypto.randomUUID(),
) {
  return relay.request('/shopify/webhooks', {
    method: 'POST',
    body,
    headers: {
      'X-Shopify-Topic': topic,
      'X-Shopify-Shop-Domain': shop,
      'X-Shopify-Hmac-Sha256': getHmac(body, signWith),
      'X-Shopify-Webhook-Id': webhookId,
    },
  });
}

describe('the Shopify app on the relay', () => {
  it('saves the website with its token once, shows the live count and only the last four characters, and the App Proxy serves it', async () => {
    const { relay, store } = await app();
    expect((await settings(relay, SHOP)).json).toEqual({ websiteId: null, tokenEnding: null, live: null });

    const saved = await settings(relay, SHOP, 'PUT', { websiteId: OWNED.id, token: OWNED.token });
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({ websiteId: OWNED.id, tokenEnding: '0000', live: { count: expect.any(Number), windowMinutes: 3 } });
    expect(relay.upstreamCalls).toHaveLength(1);

    const read = await settings(relay, SHOP);
    expect(read.json).toMatchObject({ websiteId: OWNED.id, tokenEnding: '0000' });
    // The shop's storefront, through its App Proxy: the bound website, from the check's answer.
    const served = await proxied(relay, SHOP);
    expect(served.status).toBe(200);
    expect(served.json).toMatchObject({ websiteId: OWNED.id });
    expect(relay.upstreamCalls).toHaveLength(1);
    // Nobody else reads it: unsigned, or signed for another shop.
    expect((await relay.get(`?websiteId=${OWNED.id}`)).status).toBe(401);
    expect((await proxied(relay, OTHER)).status).toBe(404);
    // The token is nowhere in any answer, nor in the store in plain text.
    for (const answer of relay.answers) expect(answerText(answer)).not.toContain(OWNED.token);
    expect(JSON.stringify([...(await store.all())])).not.toContain(OWNED.token);
  });

  it("a block left without a website ID asks by the shop's domain and gets the saved website's count under that name", async () => {
    const { relay } = await app();
    expect((await proxied(relay, SHOP, SHOP)).status).toBe(404);
    await settings(relay, SHOP, 'PUT', { websiteId: OWNED.id, token: OWNED.token });
    const byDomain = await proxied(relay, SHOP, SHOP);
    expect(byDomain.status).toBe(200);
    expect(byDomain.json).toMatchObject({ websiteId: SHOP, currentVisitors: expect.any(Number) });
    expect(byDomain.json).toEqual({ ...((await proxied(relay, SHOP)).json as object), websiteId: SHOP });
    // Only the signed shop's own domain: another shop's domain is another website.
    expect((await proxied(relay, SHOP, OTHER)).status).toBe(401);
    expect((await relay.get(`?websiteId=${SHOP}`)).status).toBe(404);
  });

  it("a shop never reads or changes another shop's settings", async () => {
    const { relay } = await app();
    await settings(relay, SHOP, 'PUT', { websiteId: OWNED.id, token: OWNED.token });
    expect((await settings(relay, OTHER)).json).toEqual({ websiteId: null, tokenEnding: null, live: null });
    expect((await proxied(relay, SHOP)).status).toBe(200);
    // The other shop saving this website with a token the service refuses, and its uninstall, change nothing here.
    expect((await settings(relay, OTHER, 'PUT', { websiteId: OWNED.id, token: 'wrong-token-1234' })).status).toBe(401);
    expect((await webhook(relay, 'app/uninstalled', OTHER)).status).toBe(200);
    expect((await settings(relay, SHOP)).json).toMatchObject({ websiteId: OWNED.id, tokenEnding: '0000' });
    expect((await proxied(relay, SHOP)).status).toBe(200);
    expect((await proxied(relay, OTHER)).status).not.toBe(200);
  });

  it.each([
    ['no session token', null, 'GET', undefined, 401, /No session token/],
    ['a token the service refuses', SHOP, 'PUT', { websiteId: OWNED.id, token: 'wrong-token-1234' }, 401, /./],
    ['a website the service does not know', SHOP, 'PUT', { websiteId: 'nobody-knows-it', token: OWNED.token }, 404, /./],
    ['a body that is not JSON', SHOP, 'PUT', '{"websiteId":', 400, /must be JSON/],
    ['no token', SHOP, 'PUT', { websiteId: OWNED.id }, 400, /Enter the API token/],
    ['an extra field', SHOP, 'PUT', { websiteId: OWNED.id, token: OWNED.token, shop: OTHER }, 400, /only websiteId and token/],
    ['a body over 16 KiB', SHOP, 'PUT', { websiteId: OWNED.id, token: 'x'.repeat(17_000) }, 413, /at most 16384 bytes/],
    ['a method of neither', SHOP, 'DELETE', undefined, 405, /Allowed: GET, PUT/],
  ])('%s: a clear JSON error, nothing stored', async (_name, shop, method, body, status, message) => {
    const { relay, store } = await app();
    const answer = await settings(relay, shop, method, body);
    expect(answer.status).toBe(status);
    expect((answer.json as { error: string }).error).toMatch(message);
    expect((await store.all()).size).toBe(0);
    expect(answerText(answer)).not.toContain(OWNED.token);
  });

  it('an expired session token is refused', async () => {
    const { relay } = await app();
    const expired = await bearer(SHOP, { exp: Math.floor(Date.now() / 1000) - 60 });
    const answer = await relay.request('/shopify/app/settings', { headers: { Authorization: expired } });
    expect([answer.status, (answer.json as { error: string }).error]).toEqual([401, expect.stringMatching(/^Expired session token/)]);
  });

  it('a write replayed with a spent session token is refused with 401 and stores nothing; reads may reuse a token', async () => {
    const { relay, store } = await app();
    const token = await bearer(SHOP);
    expect((await put(relay, token, { websiteId: OWNED.id, token: OWNED.token })).status).toBe(200);
    const stored = JSON.stringify(await store.get(OWNED.id));
    const upstream = relay.upstreamCalls.length;

    const replayed = await put(relay, token, { websiteId: OWNED.id, token: OWNED.token });
    expect(replayed.status).toBe(401);
    expect(replayed.json).toEqual({ error: expect.stringMatching(/already used for a change/), code: 'session-token-spent' });
    // Nothing asked, nothing written: a fresh IV on any write would have changed the record.
    expect(relay.upstreamCalls).toHaveLength(upstream);
    expect(JSON.stringify(await store.get(OWNED.id))).toBe(stored);
    const read = await relay.request('/shopify/app/settings', { headers: { Authorization: token } });
    expect([read.status, read.json]).toEqual([200, expect.objectContaining({ websiteId: OWNED.id })]);
  });

  it('a merchant who saves twice, each time with a new token, is served both times', async () => {
    const { relay } = await app();
    for (const _ of [1, 2]) {
      const saved = await put(relay, await bearer(SHOP), { websiteId: OWNED.id, token: OWNED.token });
      expect([saved.status, saved.json]).toEqual([200, expect.objectContaining({ websiteId: OWNED.id, tokenEnding: '0000' })]);
    }
    expect(relay.upstreamCalls).toHaveLength(2);
  });

  it('a session token without a jti reads but never writes', async () => {
    const { relay, store } = await app();
    const token = await bearer(SHOP, { jti: undefined });
    expect((await relay.request('/shopify/app/settings', { headers: { Authorization: token } })).status).toBe(200);
    const refused = await put(relay, token, { websiteId: OWNED.id, token: OWNED.token });
    expect([refused.status, (refused.json as { error: string }).error]).toEqual([401, expect.stringMatching(/without a jti/)]);
    expect((await store.all()).size).toBe(0);
    expect(relay.upstreamCalls).toHaveLength(0);
  });

  it.each(['app/uninstalled', 'shop/redact'])("%s deletes the shop's website and token, and a retry still answers 200", async (topic) => {
    const { relay, store } = await app();
    await settings(relay, SHOP, 'PUT', { websiteId: OWNED.id, token: OWNED.token });
    expect((await webhook(relay, topic, SHOP, 'wrong-secret')).status).toBe(401);
    expect((await store.all()).size).toBe(1);
    expect((await webhook(relay, topic, SHOP)).status).toBe(200);
    expect((await store.all()).size).toBe(0);
    expect((await webhook(relay, topic, SHOP)).status).toBe(200);
    expect((await settings(relay, SHOP)).json).toEqual({ websiteId: null, tokenEnding: null, live: null });
    expect((await proxied(relay, SHOP)).status).toBe(404);
  });

  it('acts on a signed body only under its own topic, and on a delivery once: a replay after a new binding deletes nothing (issue 35 finding 10)', async () => {
    const { relay, store } = await app();
    await settings(relay, SHOP, 'PUT', { websiteId: OWNED.id, token: OWNED.token });
    const dataRequest = JSON.stringify({
      shop_id: 1,
      shop_domain: SHOP,
      orders_requested: [],
      customer: { id: 7 },
      data_request: { id: 9 },
    });
    expect((await webhook(relay, 'customers/data_request', SHOP, CLIENT_SECRET, dataRequest)).status).toBe(200);
    expect((await webhook(relay, 'app/uninstalled', SHOP, CLIENT_SECRET, dataRequest)).status).toBe(400);
    expect((await store.all()).size).toBe(1);

    const uninstalled = JSON.stringify({ id: 1, myshopify_domain: SHOP });
    const delivery = crypto.randomUUID();
    expect((await webhook(relay, 'app/uninstalled', SHOP, CLIENT_SECRET, uninstalled, delivery)).json).toEqual({
      deleted: "the shop's website and token",
    });
    expect((await store.all()).size).toBe(0);
    // The shop installs the app again and saves its website; the old delivery comes back.
    expect((await settings(relay, SHOP, 'PUT', { websiteId: OWNED.id, token: OWNED.token })).status).toBe(200);
    expect((await webhook(relay, 'app/uninstalled', SHOP, CLIENT_SECRET, uninstalled, delivery)).json).toEqual({
      ignored: 'this delivery was acted on already',
    });
    expect((await store.all()).size).toBe(1);
    expect((await proxied(relay, SHOP)).status).toBe(200);
  });

  it("serves the admin page only to the admin's signed launch, framed only by that shop and Shopify's admin", async () => {
    const { relay } = await app();
    const launch = {
      embedded: '1',
      host: 'YWRtaW4uc2hvcGlmeS5jb20vc3RvcmUvZGVtby1zaG9w',
      shop: SHOP,
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    const sorted = new URLSearchParams(Object.entries(launch).sort(([a], [b]) => (a < b ? -1 : 1)));
    const hmac = createHmac('sha256', CLIENT_SECRET).update(sorted.toString()).digest('hex');
    const page = await relay.request(`/shopify/app?${sorted}&hmac=${hmac}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain(`frame-ancestors https://${SHOP} https://admin.shopify.com`);
    expect(page.text).toContain(`<meta name="shopify-api-key" content="${CLIENT_ID}">`);
    expect((await relay.request(`/shopify/app?${sorted}`)).status).toBe(401);
    expect((await relay.request(`/shopify/app?${sorted}&hmac=${'0'.repeat(64)}`)).status).toBe(401);
    const script = await relay.request('/shopify/app/admin.js');
    expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    // Its script and settings API are named relative to the page, so behind a reverse proxy's prefix they stay the app's.
    const behindPrefix = `https://proxy.example/relay/shopify/app?${sorted}&hmac=${hmac}`;
    const scriptSource = /<script type="module" src="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const settingsPath = /data-settings="([^"]+)"/.exec(page.text)?.[1] ?? '';
    expect([new URL(scriptSource, behindPrefix).href, new URL(settingsPath, behindPrefix).href]).toEqual([
      'https://proxy.example/relay/shopify/app/admin.js',
      'https://proxy.example/relay/shopify/app/settings',
    ]);
  });
});

describe('a relay without the app', () => {
  it('answers 404 on its paths', async () => {
    harness = await startRelayHarness({
      config: { selfServe: true, encryptionKeys: KEYS, registrationsMayBeLost: true },
      relay: { registrationStore: new MemoryRegistrationStore() },
    });
    expect((await harness.request('/shopify/app/settings')).status).toBe(404);
    expect((await harness.request('/shopify/webhooks', { method: 'POST', body: '{}' })).status).toBe(404);
  });
});
