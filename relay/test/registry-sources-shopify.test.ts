import { randomUUID } from 'node:crypto';
import { getJwt } from '@shopify/shopify-api/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { answerText, type RelayHarness, startRelayHarness } from './support/relay-harness.js';
import { signedProxyQuery } from './support/shopify-app-proxy-signing.js';
import { CLIENT_ID, CLIENT_SECRET } from './support/shopify-oracle.js';

/**
 * The Shopify app's settings with a source (issue 32 §5): session tokens signed by
 * @shopify/shopify-api's own helper, the relay self-serving, the emulator's stand-in of Plausible
 * (emulator/src/sources, from Plausible's documented realtime endpoint) as the service. Shopify's
 * admin and Plausible itself are not reachable here and were not run.
 */
const KEYS = [`k1:${btoa('a'.repeat(32))}`];
const SHOP = 'demo-shop.myshopify.com';
const SITE = 'not-relayed';

let harness: RelayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function app(): Promise<{ relay: RelayHarness; store: MemoryRegistrationStore; plausible: Record<string, unknown> }> {
  const store = new MemoryRegistrationStore();
  harness = await startRelayHarness({
    config: { selfServe: true, encryptionKeys: KEYS, shopifyAppSecret: CLIENT_SECRET, shopifyApp: { clientId: CLIENT_ID } },
    relay: { registrationStore: store },
  });
  const sources = (await (await fetch(`${harness.emulator.url}/__emulator/sources/${SITE}`)).json()) as Record<
    string,
    Record<string, unknown>
  >;
  return { relay: harness, store, plausible: sources.plausible! };
}

async function settings(relay: RelayHarness, method = 'GET', body?: unknown) {
  // Its own jti, as App Bridge's tokens have: a save spends its token (the helper's default jti is one fixed value).
  const { token } = await getJwt(SHOP.replace('.myshopify.com', ''), CLIENT_ID, CLIENT_SECRET, { jti: randomUUID() });
  return relay.request('/shopify/app/settings', {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('the Shopify app with a source', () => {
  it('saves a Plausible source, shows its kind and site and the 5-minute count but never its key, and the App Proxy serves it', async () => {
    const { relay, store, plausible } = await app();
    // The source names its website ID (issue 35): another one is refused, none is found.
    const elsewhere = await settings(relay, 'PUT', { websiteId: 'my-shop', source: plausible });
    expect(elsewhere.status).toBe(400);
    expect((elsewhere.json as { error: string }).error).toMatch(/This source's website ID is "plausible:.*not-relayed"/);
    const saved = await settings(relay, 'PUT', { source: plausible });
    expect(saved.status, answerText(saved)).toBe(200);
    const RELAY_ID = (saved.json as { websiteId: string }).websiteId;
    expect(RELAY_ID).toBe(`plausible:${new URL(String(plausible.base)).host}${new URL(String(plausible.base)).pathname}/${SITE}`);
    expect(saved.json).toMatchObject({
      websiteId: RELAY_ID,
      tokenEnding: String(plausible.apiKey).slice(-4),
      source: { kind: 'plausible', siteId: SITE, base: plausible.base },
      live: { count: expect.any(Number), windowMinutes: 5 },
    });
    const read = await settings(relay);
    expect(read.json).toMatchObject({ websiteId: RELAY_ID, source: { kind: 'plausible', siteId: SITE } });
    for (const answer of [saved, read]) expect(answerText(answer)).not.toContain(String(plausible.apiKey));
    expect(JSON.stringify([...(await store.all())])).not.toContain(String(plausible.apiKey));

    const query = signedProxyQuery({
      websiteId: RELAY_ID,
      shop: SHOP,
      secret: CLIENT_SECRET,
      timestampSeconds: Math.floor(Date.now() / 1000),
    });
    const served = await relay.get(query);
    expect(served.status).toBe(200);
    expect(served.json).toMatchObject({ websiteId: RELAY_ID, windowMinutes: 5 });
  });

  it('refuses a source whose key the service refuses, or that names the environment, and binds nothing', async () => {
    const { relay, store, plausible } = await app();
    const wrong = await settings(relay, 'PUT', { source: { ...plausible, apiKey: 'not-the-key-1234' } });
    expect(wrong.status).toBe(401);
    expect((wrong.json as { error: string }).error).toMatch(/Plausible refused the key or the site/);
    const fromEnvironment = await settings(relay, 'PUT', { source: { ...plausible, apiKey: { env: 'HOME' } } });
    expect(fromEnvironment.status).toBe(400);
    expect((fromEnvironment.json as { error: string }).error).toMatch(/must be the secret itself/);
    expect((await store.all()).size).toBe(0);
    expect((await settings(relay)).json).toEqual({ websiteId: null, tokenEnding: null, live: null });
  });
});
