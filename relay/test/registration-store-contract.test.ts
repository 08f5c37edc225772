// @vitest-environment node
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileRegistrationStore } from '../src/registry/file-registration-store.js';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { RedisRegistrationStore } from '../src/registry/redis-registration-store.js';
import { type RegistrationRecord, readRegistrationRecord, type UnsealedRecord } from '../src/registry/registration-record.js';
import type { RegistrationStore } from '../src/registry/registration-store.js';
import { rotateKeys } from '../src/registry/rotate-keys.js';
import { TokenCipher } from '../src/registry/token-cipher.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';

/**
 * What every registration store promises (issue 35): writes and removals are compare-and-set on the
 * record the writer read, pages cover every record, and rotate-keys seals older records whole. The
 * Durable Object's keeper is held to the same in workerd (registry-durable-object-integrity.test.ts).
 */
const KEY = `a:${btoa('A'.repeat(32))}`;
const cipher = new TokenCipher([KEY]);

let redis: RedisServer;
let folder: string;
const opened: RegistrationStore[] = [];
let fresh = 0;
/** A name no other test's store uses. */
const freshName = () => `contract-${++fresh}`;

beforeAll(async () => {
  [redis, folder] = await Promise.all([startRedisServer(), mkdtemp(join(tmpdir(), 'relay-registration-contract-'))]);
}, 30_000);

afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await Promise.all([redis?.close(), folder && rm(folder, { recursive: true, force: true })]);
});

const SUBJECTS: { readonly name: string; open(): Promise<RegistrationStore> }[] = [
  { name: 'memory', open: async () => new MemoryRegistrationStore() },
  { name: 'file', open: () => FileRegistrationStore.open(join(folder, `${freshName()}.json`), () => {}) },
  {
    name: 'Redis',
    async open() {
      const store = await RedisRegistrationStore.connect({ url: redis.url, prefix: `${freshName()}:`, log: () => {} });
      opened.push(store);
      return store;
    },
  },
];

function fields(websiteId: string, allowOrigins: readonly string[] | null = null): UnsealedRecord {
  return { websiteId, allowOrigins, hourlyBudget: 100, tokenEnding: '1234', shop: null, source: null, savedAtMs: 1 };
}

const sealed = (websiteId: string, allowOrigins?: readonly string[]) => cipher.seal(fields(websiteId, allowOrigins), 'tok-SECRET-1234');

describe.each(SUBJECTS)('the $name registration store', ({ open }) => {
  it('writes a record only over the one the writer read, and removes only that one', async () => {
    const store = await open();
    const first = await sealed('cas-site', ['https://first.example']);
    const second = await sealed('cas-site', ['https://second.example']);
    expect(await store.put(first, null)).toBe(true);
    // Another writer that also read "none" loses, and changes nothing.
    expect(await store.put(second, null)).toBe(false);
    expect(readRegistrationRecord(await store.get('cas-site'), 'cas-site')?.allowOrigins).toEqual(['https://first.example']);
    // Over the one it read: written; a writer still holding the first then loses.
    expect(await store.put(second, first)).toBe(true);
    const third = await sealed('cas-site');
    expect(await store.put(third, first)).toBe(false);
    expect(await store.remove(first)).toBe(false);
    expect(await store.get('cas-site')).not.toBeNull();
    expect(await store.remove(second)).toBe(true);
    expect(await store.get('cas-site')).toBeNull();
    // Removed: a writer that read the removed record does not bring it back.
    expect(await store.put(third, second)).toBe(false);
    expect(await store.remove(second)).toBe(false);
  });

  it('moves its version on with every write it makes, and not with one it refuses', async () => {
    const store = await open();
    const record = await sealed('versioned');
    const before = await store.version();
    expect(await store.put(record, null)).toBe(true);
    const after = await store.version();
    expect(after).not.toBe(before);
    expect(await store.put(await sealed('versioned'), null)).toBe(false);
    expect(await store.version()).toBe(after);
  });

  it('hands every record out in pages, each once, whatever the count', async () => {
    const store = await open();
    const ids = Array.from({ length: 250 }, (_, index) => `paged-${index}`);
    for (const id of ids) expect(await store.put(await sealed(id), null)).toBe(true);
    const seen = new Set<string>();
    let pages = 0;
    let cursor = '';
    do {
      const page = await store.page(cursor);
      for (const [id, raw] of page.records) {
        expect(readRegistrationRecord(raw, id)).not.toBeNull();
        seen.add(id);
      }
      pages += 1;
      cursor = page.next;
    } while (cursor !== '' && pages < 100);
    expect([...seen].sort()).toEqual([...ids].sort());
    expect(pages).toBeGreaterThan(1);
  });

  it('rotate-keys seals a record of the older format whole, and leaves one sealed so alone', async () => {
    const store = await open();
    const older = { ...fields('older-format', ['https://shop.example']), token: await cipher.sealText('older-format', 'tok-SECRET-1234') };
    // As today's code wrote them: no format field.
    expect(await store.put(older as unknown as RegistrationRecord, null)).toBe(true);
    expect(await store.put(await sealed('newer-format'), null)).toBe(true);
    expect(await rotateKeys({ encryptionKeys: [KEY] }, store)).toEqual({ reencrypted: 1, current: 1, unreadable: [], changed: [] });
    const resealed = readRegistrationRecord(await store.get('older-format'), 'older-format')!;
    expect(resealed).toMatchObject({ format: 2, allowOrigins: ['https://shop.example'] });
    expect(await cipher.open(resealed)).toBe('tok-SECRET-1234');
  });
});
