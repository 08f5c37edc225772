import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorConfig, startEmulatorServer } from '../../emulator/src/index.js';
import { secretForms } from '../src/redaction.js';
import { FileRegistrationStore } from '../src/registry/file-registration-store.js';
import { RedisRegistrationStore } from '../src/registry/redis-registration-store.js';
import { createRelay, type RelayHandler } from '../src/relay.js';
import { RedisStore } from '../src/store/redis-store.js';
import { redisContents } from './support/redis-contents.js';
import type { RedisServer } from './support/redis-server.js';
import { closeRegistrationBackends, startRegistrationBackends } from './support/registration-backends.js';
import { ManualClock } from './support/relay-harness.js';
import { selfServeStoreConfig } from './support/self-serve-store-config.js';

/**
 * Registrations of every kind of source (issue 32 §5), made through the API against the emulator's
 * stand-ins, then the store read byte for byte (a real Redis's every key, the file store's file):
 * no secret in plain, JSON-escaped, URL, base64 (each alignment, and base64url) or hex, in any case.
 */
const SITE = 'scan-site';
/** Umami's self-hosted login reads another site: a source's website ID names its site, so one site is one registration. */
const LOGIN_SITE = 'scan-login-site';
const EMULATOR: EmulatorConfig = {
  websites: [
    { id: SITE, token: 'tokScan-SECRET-0001', plan: 'enterprise' },
    { id: LOGIN_SITE, token: 'tokScan-SECRET-0002', plan: 'enterprise' },
  ],
};
const KEY = `scan:${btoa('k'.repeat(32))}`;
const clock = new ManualClock();

let redis: RedisServer;
let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
let folder: string;
let sources: Record<string, Record<string, unknown>>;
/** Each source's website ID, as the registration API answered it. */
const ids = new Map<string, string>();

beforeAll(async () => {
  [redis, emulator, folder] = await startRegistrationBackends(EMULATOR, clock.now, 'relay-sources-scan-');
  const pasted = (await (await fetch(`${emulator.url}/__emulator/sources/${SITE}`)).json()) as Record<string, Record<string, unknown>>;
  const { username, password } = { username: 'admin', password: 'umami' };
  // Umami twice: with Cloud's API key, and self-hosted with the stand-in's documented first login.
  sources = { ...pasted, 'umami-login': { kind: 'umami', base: pasted.umami!.base, websiteId: LOGIN_SITE, username, password } };
});

afterAll(async () => {
  await closeRegistrationBackends(redis, emulator, folder);
});

function configFor(overrides: Record<string, unknown>) {
  // The emulator stands in for every source's service, on loopback: listed as an operator would list its own.
  return selfServeStoreConfig(emulator.url, KEY, 10, { sourceBases: [emulator.url], ...overrides });
}

async function registerEveryKind(relay: RelayHandler): Promise<void> {
  await relay.registrations!.ready;
  for (const [name, source] of Object.entries(sources)) {
    const answer = await relay(new Request('http://relay.test/api/v1/websites', { method: 'POST', body: JSON.stringify({ source }) }));
    expect(answer.status, `${name}: ${await answer.clone().text()}`).toBe(201);
    ids.set(name, ((await answer.json()) as { websiteId: string }).websiteId);
  }
}

/** Every secret of every registered source as text: API keys, the token_auth, the password, the JSON key's private key and a line of its body. */
function secrets(): string[] {
  return Object.values(sources).flatMap((source) => {
    const credentials = source.credentials as { private_key: string } | undefined;
    const pem = credentials?.private_key;
    const own = [source.apiKey, source.tokenAuth, source.password].filter((secret): secret is string => typeof secret === 'string');
    return pem === undefined ? own : [...own, pem, JSON.stringify(pem).slice(1, -1), pem.split('\n')[2]!];
  });
}

/** Each secret's forms found in `text`. The stand-in's password is the word "umami", the kind's own name: only its encodings of 6 characters and more can tell a leak. */
function leaks(text: string): string[] {
  const lower = text.toLowerCase();
  return secrets().flatMap((secret) =>
    secretForms(secret)
      .filter((form) => secret !== 'umami' || (form.length >= 6 && form.toLowerCase() !== 'umami'))
      .filter((form) => lower.includes(form.toLowerCase())),
  );
}

describe('a store of registrations with every kind of source', () => {
  it('the scan finds every secret written in the open in a JSON record (so an empty result means something)', () => {
    for (const secret of secrets()) {
      // The password "umami" is looked for in its encodings only (see leaks).
      const written = secret === 'umami' ? btoa(secret) : secret;
      expect(leaks(JSON.stringify({ written })), secret.slice(0, 12)).not.toEqual([]);
    }
  });

  it('Redis: no secret in any key or value, in any encoding, and the relay serves every one', async () => {
    const prefix = 'sources-scan:';
    const config = configFor({ store: redis.url, storePrefix: prefix });
    const store = await RedisStore.connect({ url: redis.url, prefix, log: () => {} });
    const registrationStore = await RedisRegistrationStore.connect({ url: redis.url, prefix, log: () => {} });
    try {
      const relay = createRelay({ config, store, registrationStore, now: clock.now, log: () => {} });
      await registerEveryKind(relay);
      for (const name of Object.keys(sources)) {
        expect(
          (await relay(new Request(`http://relay.test/api/v1/realtime?websiteId=${encodeURIComponent(ids.get(name)!)}`))).status,
          name,
        ).toBe(200);
      }
      const { text: everything } = await redisContents(redis.url, `${prefix}*`);
      // The records are there, each with its kind in the open and its secrets sealed.
      for (const kind of ['plausible', 'umami', 'matomo', 'ga4', 'fathom']) expect(everything).toMatch(new RegExp(`kind\\W+${kind}`));
      expect(everything.length).toBeGreaterThan(5_000);
      expect(leaks(everything)).toEqual([]);
    } finally {
      await Promise.all([store.close(), registrationStore.close()]);
    }
  });

  it('the file store: no secret in the file, in any encoding, and the relay serves every one after a restart', async () => {
    const path = join(folder, 'registrations.json');
    const config = configFor({ registrationsFile: path });
    await registerEveryKind(
      createRelay({ config, registrationStore: await FileRegistrationStore.open(path, () => {}), now: clock.now, log: () => {} }),
    );
    const text = await readFile(path, 'utf8');
    expect(Object.keys(JSON.parse(text).registrations)).toHaveLength(Object.keys(sources).length);
    expect(leaks(text)).toEqual([]);

    const restarted = createRelay({
      config,
      registrationStore: await FileRegistrationStore.open(path, () => {}),
      now: clock.now,
      log: () => {},
    });
    await restarted.registrations!.ready;
    clock.advance(60_000);
    for (const name of Object.keys(sources)) {
      expect(
        (await restarted(new Request(`http://relay.test/api/v1/realtime?websiteId=${encodeURIComponent(ids.get(name)!)}`))).status,
        name,
      ).toBe(200);
    }
  });
});
