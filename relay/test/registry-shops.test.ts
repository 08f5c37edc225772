// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorConfig, startEmulatorServer } from '../../emulator/src/index.js';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { createRelay, type RelayHandler } from '../src/relay.js';

/** The interface the Shopify app calls (registrations.ts), on a relay against the emulator. */
const FIRST = { id: 'shop-site-1', token: 'tokShop1-SECRET-aaaa' };
const SECOND = { id: 'shop-site-2', token: 'tokShop2-SECRET-bbbb' };
const SHOP = 'fine-goods.myshopify.com';
const EMULATOR: EmulatorConfig = { websites: [FIRST, SECOND].map((website) => ({ ...website, plan: 'enterprise' as const })) };

let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
beforeAll(async () => {
  emulator = await startEmulatorServer({ port: 0, config: EMULATOR, onError: () => undefined });
});
afterAll(() => emulator?.close());

function selfServing(store = new MemoryRegistrationStore()): { relay: RelayHandler; store: MemoryRegistrationStore } {
  const relay = createRelay({
    config: {
      upstream: emulator.url,
      selfServe: true,
      encryptionKeys: [`s:${btoa('s'.repeat(32))}`],
      websites: [{ id: 'configured', token: 'tokConfigured-0000' }],
    },
    registrationStore: store,
    log: () => {},
  });
  return { relay, store };
}

describe('Registrations, as the Shopify app uses them', () => {
  it('reads a registration with only the last four characters of its token', async () => {
    const { relay } = selfServing();
    const registrations = relay.registrations!;
    expect(await registrations.read(FIRST.id)).toBeNull();
    const registered = await registrations.register({ websiteId: FIRST.id, token: FIRST.token, requester: `shop:${SHOP}` });
    expect(registered).toMatchObject({
      outcome: 'created',
      registration: { websiteId: FIRST.id, allowOrigins: null, hourlyBudget: 100, tokenEnding: 'aaaa', shop: null },
    });
    expect(Object.keys((registered as { registration: object }).registration)).not.toContain('token');
    expect(JSON.stringify(await registrations.read(FIRST.id))).not.toContain(FIRST.token);
  });

  it('binds a website to a shop, moves the shop to another website (removing the old one), and forgets it on uninstall, twice', async () => {
    const { relay, store } = selfServing();
    const registrations = relay.registrations!;
    await registrations.register({ websiteId: FIRST.id, token: FIRST.token, requester: `shop:${SHOP}` });
    expect(await registrations.bindShop(SHOP, FIRST.id)).toMatchObject({ outcome: 'bound', registration: { shop: SHOP } });
    expect(await registrations.websiteOfShop(SHOP)).toBe(FIRST.id);
    // Bound to a shop, it is served only through that shop's App Proxy.
    expect((await relay(new Request(`http://relay.test/api/v1/realtime?websiteId=${FIRST.id}`))).status).toBe(401);

    await registrations.register({ websiteId: SECOND.id, token: SECOND.token, requester: `shop:${SHOP}` });
    await registrations.bindShop(SHOP, SECOND.id);
    expect(await registrations.websiteOfShop(SHOP)).toBe(SECOND.id);
    expect(await registrations.read(FIRST.id)).toBeNull();

    await registrations.removeShop(SHOP);
    await registrations.removeShop(SHOP);
    expect(await registrations.websiteOfShop(SHOP)).toBeNull();
    expect((await store.all()).size).toBe(0);
  });

  it("refuses to bind an unregistered website (404) or one of the config's (409)", async () => {
    const registrations = selfServing().relay.registrations!;
    expect(await registrations.bindShop(SHOP, 'never-registered')).toMatchObject({ outcome: 'refused', status: 404 });
    expect(await registrations.bindShop(SHOP, 'configured')).toMatchObject({ outcome: 'refused', status: 409 });
  });

  it('removes with the stored token without asking the service, and says 401 to a wrong one', async () => {
    const registrations = selfServing().relay.registrations!;
    await registrations.register({ websiteId: FIRST.id, token: FIRST.token, requester: 'owner' });
    expect(await registrations.remove(FIRST.id, SECOND.token, 'owner')).toMatchObject({ outcome: 'refused', status: 401 });
    expect(await registrations.remove(FIRST.id, FIRST.token, 'owner')).toEqual({ outcome: 'removed' });
  });
});
