// @vitest-environment node
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorConfig, startEmulatorServer } from '../../emulator/src/index.js';
import { secretForms } from '../src/redaction.js';
import { FileRegistrationStore } from '../src/registry/file-registration-store.js';
import { RedisRegistrationStore } from '../src/registry/redis-registration-store.js';
import type { RegistrationStore } from '../src/registry/registration-store.js';
import { rotateKeys } from '../src/registry/rotate-keys.js';
import { createRelay, type RelayHandler } from '../src/relay.js';
import { RedisStore } from '../src/store/redis-store.js';
import { redisContents } from './support/redis-contents.js';
import type { RedisServer } from './support/redis-server.js';
import { closeRegistrationBackends, startRegistrationBackends } from './support/registration-backends.js';
import { ManualClock } from './support/relay-harness.js';
import { selfServeStoreConfig } from './support/self-serve-store-config.js';

/** Tokens with every character a Bearer token may hold, so each encoding differs from the plain text. */
const OWNERS = [
  { id: 'owner-one', token: 'tokOne-SECRET+a/b~c9=' },
  { id: 'owner-two', token: 'tokTwo_SECRET~x.y-77==' },
  { id: 'owner-three', token: 'tokThree-SECRET-0042' },
] as const;
const EMULATOR: EmulatorConfig = { websites: OWNERS.map(({ id, token }) => ({ id, token, plan: 'enterprise' as const })) };
const OLD_KEY = `old:${btoa('o'.repeat(32))}`;
const NEW_KEY = `new:${btoa('n'.repeat(32))}`;
const INTERVAL_S = 10;

let redis: RedisServer;
let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
let folder: string;
const clock = new ManualClock();

beforeAll(async () => {
  [redis, emulator, folder] = await startRegistrationBackends(EMULATOR, clock.now, 'relay-registry-');
});

afterAll(async () => {
  await closeRegistrationBackends(redis, emulator, folder);
});

function configFor(overrides: Record<string, unknown>) {
  return selfServeStoreConfig(emulator.url, OLD_KEY, INTERVAL_S, overrides);
}

async function call(relay: RelayHandler, method: string, path: string, token?: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  return relay(new Request(`http://relay.test${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
}

const register = (relay: RelayHandler, owner: { id: string; token: string }) =>
  call(relay, 'PUT', `/api/v1/websites/${owner.id}`, owner.token);
const countOf = (relay: RelayHandler, id: string) => call(relay, 'GET', `/api/v1/realtime?websiteId=${id}`);

/** Asks until the relay answers `status` (a request starts its look at the store; the answer follows it), for two seconds at most. */
async function answersSoon(relay: RelayHandler, id: string, status: number): Promise<number> {
  let seen = 0;
  for (let attempt = 0; attempt < 100 && seen !== status; attempt += 1) {
    seen = (await countOf(relay, id)).status;
    if (seen !== status) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return seen;
}

/** Every form a leak could take (plain, URL, base64 at each alignment and base64url, hex, any case) of every token, found in `text`. */
function leaks(text: string): string[] {
  const lower = text.toLowerCase();
  return OWNERS.flatMap(({ token }) => secretForms(token).filter((form) => lower.includes(form.toLowerCase())));
}

describe('registrations in Redis, shared by a fleet', () => {
  const prefix = 'registry-fleet:';
  let stores: RegistrationStore[] = [];
  let relays: RelayHandler[] = [];

  beforeAll(async () => {
    const config = configFor({ store: redis.url, storePrefix: prefix });
    const made = await Promise.all(
      [1, 2].map(async () => {
        const store = await RedisStore.connect({ url: redis.url, prefix, log: () => {} });
        const registrationStore = await RedisRegistrationStore.connect({ url: redis.url, prefix, log: () => {} });
        return { store, registrationStore, relay: createRelay({ config, store, registrationStore, now: clock.now, log: () => {} }) };
      }),
    );
    relays = made.map(({ relay }) => relay);
    stores = made.flatMap(({ store, registrationStore }) => [store as never, registrationStore]);
    await Promise.all(relays.map((relay) => relay.registrations!.ready));
  });

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  it('serves a registration made on one instance from the other within one interval, and forgets a removal as fast', async () => {
    const [first, second] = relays as [RelayHandler, RelayHandler];
    expect((await countOf(second, OWNERS[0].id)).status).toBe(404);
    expect((await register(first, OWNERS[0])).status).toBe(201);
    // Within one interval of the relay's clock: its look at the store is due by then.
    clock.advance(INTERVAL_S * 1000);
    expect(await answersSoon(second, OWNERS[0].id, 200)).toBe(200);

    expect((await call(first, 'DELETE', `/api/v1/websites/${OWNERS[0].id}`, OWNERS[0].token)).status).toBe(204);
    clock.advance(INTERVAL_S * 1000);
    expect(await answersSoon(second, OWNERS[0].id, 404)).toBe(404);
  });

  it('keeps no token in Redis in any encoding', async () => {
    for (const owner of OWNERS) expect((await register(relays[0]!, owner)).status).toBeLessThan(300);
    for (const owner of OWNERS) expect((await countOf(relays[1]!, owner.id)).status).not.toBe(500);
    const { keys, text: everything } = await redisContents(redis.url, '*');
    expect(keys.some((key) => key.startsWith(`${prefix}registrations`))).toBe(true);
    expect(everything.length).toBeGreaterThan(1_000);
    expect(leaks(everything)).toEqual([]);
  });
});

describe('registration attempts in Redis', () => {
  it('are counted once for the whole fleet: a requester refused on one instance is refused on the other', async () => {
    const prefix = 'registry-attempts:';
    const config = configFor({ store: redis.url, storePrefix: prefix, registrationsPerHour: 10 });
    const stores = await Promise.all(
      [1, 2].map(async () => ({
        store: await RedisStore.connect({ url: redis.url, prefix, log: () => {} }),
        registrationStore: await RedisRegistrationStore.connect({ url: redis.url, prefix, log: () => {} }),
      })),
    );
    try {
      const [first, second] = stores.map(({ store, registrationStore }) =>
        createRelay({ config, store, registrationStore, now: clock.now, log: () => {}, clientAddress: () => '203.0.113.7' }),
      ) as [RelayHandler, RelayHandler];
      // A tenth of 10: one attempt an hour for this address, fleet-wide.
      expect((await register(first, { id: OWNERS[2].id, token: 'wrong-token-0001' })).status).toBe(401);
      const refused = await register(second, OWNERS[2]);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3_000);
    } finally {
      await Promise.all(stores.flatMap(({ store, registrationStore }) => [store.close(), registrationStore.close()]));
    }
  });
});

describe('registrations in a file, for one Node instance', () => {
  it('survive a restart, are written atomically with owner-only permissions, and hold no token in any encoding', async () => {
    const path = join(folder, 'registrations.json');
    const config = configFor({ registrationsFile: path });
    const first = createRelay({
      config,
      registrationStore: await FileRegistrationStore.open(path, () => {}),
      now: clock.now,
      log: () => {},
    });
    await first.registrations!.ready;
    for (const owner of OWNERS) expect((await register(first, owner)).status).toBe(201);

    const text = await readFile(path, 'utf8');
    expect(Object.keys(JSON.parse(text).registrations).sort()).toEqual(OWNERS.map(({ id }) => id).sort());
    expect(leaks(text)).toEqual([]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // No temporary file is left beside it.
    expect(await readdir(folder)).toEqual(['registrations.json']);

    // A restart: a new relay on the same file serves every registration.
    const restarted = createRelay({
      config,
      registrationStore: await FileRegistrationStore.open(path, () => {}),
      now: clock.now,
      log: () => {},
    });
    await restarted.registrations!.ready;
    clock.advance(INTERVAL_S * 1000);
    for (const owner of OWNERS) expect((await countOf(restarted, owner.id)).status).toBe(200);
  });

  it('refuses to start on a file that is not a registrations file, rather than overwrite it', async () => {
    const path = join(folder, 'not-ours.json');
    await import('node:fs/promises').then(({ writeFile }) => writeFile(path, '{"something": "else"}'));
    await expect(FileRegistrationStore.open(path, () => {})).rejects.toThrow(/not a registrations file/);
  });
});

describe('key rotation', () => {
  it('re-encrypts every record under the first key, after which the old key can go', async () => {
    const path = join(folder, 'rotation.json');
    const before = configFor({ registrationsFile: path });
    const relay = createRelay({
      config: before,
      registrationStore: await FileRegistrationStore.open(path, () => {}),
      now: clock.now,
      log: () => {},
    });
    await relay.registrations!.ready;
    for (const owner of OWNERS) await register(relay, owner);
    const keyIds = async () =>
      Object.values(JSON.parse(await readFile(path, 'utf8')).registrations as Record<string, { token: { keyId: string } }>).map(
        (record) => record.token.keyId,
      );
    expect(await keyIds()).toEqual(['old', 'old', 'old']);

    const rotated = configFor({ registrationsFile: path, encryptionKeys: [NEW_KEY, OLD_KEY] });
    const store = await FileRegistrationStore.open(path, () => {});
    expect(await rotateKeys(rotated, store)).toEqual({ reencrypted: 3, current: 0, unreadable: [], changed: [] });
    expect(await keyIds()).toEqual(['new', 'new', 'new']);

    const onlyNew = configFor({ registrationsFile: path, encryptionKeys: [NEW_KEY] });
    const after = createRelay({
      config: onlyNew,
      registrationStore: await FileRegistrationStore.open(path, () => {}),
      now: clock.now,
      log: () => {},
    });
    await after.registrations!.ready;
    clock.advance(INTERVAL_S * 1000);
    for (const owner of OWNERS) expect((await countOf(after, owner.id)).status).toBe(200);
  });

  it('leaves a record it cannot read as it is and names it', async () => {
    const path = join(folder, 'lost-key.json');
    const relay = createRelay({
      config: configFor({ registrationsFile: path }),
      registrationStore: await FileRegistrationStore.open(path, () => {}),
      now: clock.now,
      log: () => {},
    });
    await relay.registrations!.ready;
    await register(relay, OWNERS[1]);
    const withoutOld = configFor({ registrationsFile: path, encryptionKeys: [NEW_KEY] });
    const store = await FileRegistrationStore.open(path, () => {});
    expect(await rotateKeys(withoutOld, store)).toEqual({ reencrypted: 0, current: 0, unreadable: [OWNERS[1].id], changed: [] });
  });
});
