// @vitest-environment node
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileRegistrationStore } from '../src/registry/file-registration-store.js';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import type { RegistrationStore } from '../src/registry/registration-store.js';

/**
 * Memory and file stores keep the relay-wide limits however many addresses try (issue 35 §5,
 * finding 9: after 1,099,941 refused attempts from distinct addresses the counters were evicted
 * and 60 more attempts were admitted within the hour). They bound their counters at 1,100,000: the
 * per-address ones may go, the relay-wide ones (a name without `:`) never.
 */
const NOW_MS = Date.UTC(2026, 10, 29, 6, 0, 0);
/** More distinct addresses than the stores keep counters for. */
const ADDRESSES = 1_100_001;
const RELAY_WIDE = [
  ['failures', 60],
  ['checks', 600],
] as const;

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-wide-limit-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const stores: Record<string, () => Promise<RegistrationStore>> = {
  memory: async () => new MemoryRegistrationStore(),
  file: () => FileRegistrationStore.open(join(folder, 'registrations.json'), () => {}),
};

describe.each(Object.keys(stores))('the %s store', (name) => {
  it('keeps a full relay-wide counter full after more addresses than it keeps counters for', async () => {
    const store = await stores[name]!();
    for (const [counter, limit] of RELAY_WIDE) {
      for (let event = 0; event < limit; event += 1) expect((await store.takeHourly(counter, NOW_MS, limit)).taken).toBe(true);
    }
    for (let address = 0; address < ADDRESSES; address += 1) {
      await store.takeHourly(`failures:client:10.${address >> 16}.${(address >> 8) & 255}.${address & 255}`, NOW_MS + 1, 6);
    }
    // Within the same hour: nothing of either relay-wide limit came back.
    for (const [counter, limit] of RELAY_WIDE) {
      const after = await store.takeHourly(counter, NOW_MS + 2, limit);
      expect(after.taken, counter).toBe(false);
      expect(after.nextRoomAtMs).toBe(NOW_MS + 60 * 60_000);
    }
    await store.close();
  }, 60_000);
});
