// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorConfig, startEmulatorServer } from '../../emulator/src/index.js';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import type { RegistrationRecord } from '../src/registry/registration-record.js';
import type { RegistrationPage } from '../src/registry/registration-store.js';
import { rotateKeys } from '../src/registry/rotate-keys.js';
import { createRelay } from '../src/relay.js';

/**
 * A Shopify webhook's removal (`app/uninstalled`, `shop/redact`) and `rotate-keys` at once (issue
 * 35): whichever writes first, the website stays removed. The rotation is made to land between the
 * webhook's read and its removal by a memory store that runs it there, once.
 */
const OWNER = { id: 'uninstalled-site', token: 'tokUninstall-SECRET-cccc' };
const SHOP = 'gone-goods.myshopify.com';
const EMULATOR: EmulatorConfig = { websites: [{ ...OWNER, plan: 'enterprise' }] };
const OLD_KEY = `o:${btoa('o'.repeat(32))}`;
const NEW_KEY = `n:${btoa('n'.repeat(32))}`;

let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
beforeAll(async () => {
  emulator = await startEmulatorServer({ port: 0, config: EMULATOR, onError: () => undefined });
});
afterAll(() => emulator?.close());

/**
 * A memory store that runs `between` once: on `removal`, after a removal was asked for and before
 * it is made; on `rotation-read`, after a page of records (or all of them) was read for a rotation.
 */
class InterleavingStore extends MemoryRegistrationStore {
  between: { readonly on: 'removal' | 'rotation-read'; run(): Promise<unknown> } | undefined;

  async #runBetween(on: 'removal' | 'rotation-read'): Promise<void> {
    const between = this.between;
    if (between?.on !== on) return;
    this.between = undefined;
    await between.run();
  }

  override async remove(expected: RegistrationRecord): Promise<boolean> {
    await this.#runBetween('removal');
    return super.remove(expected);
  }

  override async page(cursor: string): Promise<RegistrationPage> {
    const read = await super.page(cursor);
    await this.#runBetween('rotation-read');
    return read;
  }

  override async all(): Promise<ReadonlyMap<string, unknown>> {
    const read = await super.all();
    await this.#runBetween('rotation-read');
    return read;
  }
}

async function boundWebsite() {
  const store = new InterleavingStore();
  const relay = createRelay({
    config: { upstream: emulator.url, selfServe: true, encryptionKeys: [OLD_KEY] },
    registrationStore: store,
    log: () => {},
  });
  const registrations = relay.registrations!;
  await registrations.ready;
  expect(await registrations.register({ websiteId: OWNER.id, token: OWNER.token, requester: `shop:${SHOP}` })).toMatchObject({
    outcome: 'created',
  });
  expect(await registrations.bindShop(SHOP, OWNER.id)).toMatchObject({ outcome: 'bound' });
  return { store, registrations };
}

describe('a shop removed while rotate-keys runs', () => {
  it('stays removed when the rotation re-seals the record between the webhook reading it and removing it', async () => {
    const { store, registrations } = await boundWebsite();
    let rotation: Awaited<ReturnType<typeof rotateKeys>> | undefined;
    store.between = {
      on: 'removal',
      run: async () => {
        rotation = await rotateKeys({ encryptionKeys: [NEW_KEY, OLD_KEY] }, store);
      },
    };
    await registrations.removeShop(SHOP);
    expect(rotation).toMatchObject({ reencrypted: 1 });
    expect(await store.get(OWNER.id)).toBeNull();
    expect(await registrations.websiteOfShop(SHOP)).toBeNull();
  });

  it('stays removed when the webhook removes it after the rotation read it', async () => {
    const { store, registrations } = await boundWebsite();
    store.between = { on: 'rotation-read', run: () => registrations.removeShop(SHOP) };
    const rotation = await rotateKeys({ encryptionKeys: [NEW_KEY, OLD_KEY] }, store);
    expect(rotation).toMatchObject({ reencrypted: 0, changed: [OWNER.id] });
    expect(await store.get(OWNER.id)).toBeNull();
  });
});
