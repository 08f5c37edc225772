import { randomUUID } from 'node:crypto';
import { getJwt } from '@shopify/shopify-api/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { type Answer, type RelayHarness, startRelayHarness } from './support/relay-harness.js';
import { CLIENT_ID, CLIENT_SECRET } from './support/shopify-oracle.js';

/**
 * The Shopify app's settings saves are proofs of ownership like the API's (issue 35 §5): each shop
 * is one client, failures count against it and against the website ID, successes do not. Session
 * tokens are signed by @shopify/shopify-api's own helper; the emulator is the contract's service.
 */
const KEYS = [`k1:${btoa('a'.repeat(32))}`];
/** Known to the emulator, not configured on the relay: a shop may register it. */
const OWNED = { id: 'not-relayed', token: 'tokC-SECRET-0000' } as const;

let harness: RelayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function app(): Promise<RelayHarness> {
  harness = await startRelayHarness({
    config: {
      selfServe: true,
      encryptionKeys: KEYS,
      shopifyAppSecret: CLIENT_SECRET,
      shopifyApp: { clientId: CLIENT_ID },
      registrationsPerHour: 60,
    },
    relay: { registrationStore: new MemoryRegistrationStore() },
  });
  return harness;
}

/** A save from `shop` (its own session token each time, as App Bridge hands them out). */
async function save(relay: RelayHarness, shop: string, body: unknown): Promise<Answer> {
  const { token } = await getJwt(shop, CLIENT_ID, CLIENT_SECRET, { jti: randomUUID() });
  return relay.request('/shopify/app/settings', {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('Shopify settings saves', () => {
  it('count failed proofs per shop and per website ID: 429 after a shop’s share, while another shop with the token saves at once', async () => {
    const relay = await app();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 8; attempt += 1) {
      statuses.push((await save(relay, 'guessing-shop', { websiteId: OWNED.id, token: `wrong-token-${attempt}` })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
    const asked = relay.upstreamCalls.length;
    expect(asked).toBe(6);

    // The website ID had its six failures: a second guessing shop gets one try, then waits.
    expect((await save(relay, 'other-guess', { websiteId: OWNED.id, token: 'wrong-token-x' })).status).toBe(401);
    const waits = await save(relay, 'other-guess', { websiteId: OWNED.id, token: 'wrong-token-y' });
    expect(waits.status).toBe(429);
    expect(Number(waits.headers.get('retry-after'))).toBeGreaterThan(60);
    expect((waits.json as { error: string }).error).toMatch(/for this website ID this hour.*try again in \d+ minutes?$/);

    const owner = await save(relay, 'owner-shop', { websiteId: OWNED.id, token: OWNED.token });
    expect(owner.status).toBe(200);
    expect(owner.json).toMatchObject({ websiteId: OWNED.id, tokenEnding: OWNED.token.slice(-4) });
  });

  it('count no successful save: an owner changing its settings ten times in an hour is never refused', async () => {
    const relay = await app();
    for (let change = 0; change < 10; change += 1) {
      const saved = await save(relay, 'owner-shop', { websiteId: OWNED.id, token: OWNED.token });
      expect(saved.status, `save ${change + 1}`).toBe(200);
    }
  });
});
