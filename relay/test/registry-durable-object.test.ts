// @vitest-environment node
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare, type MiniflareOptions } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorServer } from '../../emulator/src/index.js';
import { secretForms } from '../src/redaction.js';
import { bundleWorker, captureOutput } from './runtimes/workerd-support.js';
import { fleetWorkers } from './support/fleet-workers.js';

/**
 * Registrations in a Durable Object's SQLite storage, in workerd (Miniflare): two Workers (two
 * isolates of one fleet) bind one `RegistrationKeeper`; workerd is restarted on the same persisted
 * storage, as Cloudflare keeps it past an eviction. Cloudflare itself was not run.
 */
const OWNER = { id: 'worker-owner', token: 'tokWorker-SECRET+q/z=' } as const;
const KEY = `w1:${btoa('w'.repeat(32))}`;
const WORKER = fileURLToPath(new URL('./registry-durable-object-worker.ts', import.meta.url));
const names = ['relay-0', 'relay-1'];

let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
let miniflare: Miniflare;
let options: MiniflareOptions;
let urls: string[];
const persist = mkdtempSync(join(tmpdir(), 'relay-registrations-do-'));
const stdio = captureOutput();

async function start(): Promise<void> {
  miniflare = new Miniflare(options);
  await miniflare.ready;
  urls = await Promise.all(names.map(async (name) => (await miniflare.unsafeGetDirectURL(name)).origin));
}

beforeAll(async () => {
  emulator = await startEmulatorServer({ port: 0, config: { websites: [{ ...OWNER, plan: 'enterprise' }] }, onError: () => undefined });
  const script = await bundleWorker(WORKER);
  const bindings = {
    LIVE_VISITORS_UPSTREAM: emulator.url,
    LIVE_VISITORS_SELF_SERVE: 'true',
    LIVE_VISITORS_ENCRYPTION_KEYS: KEY,
    LIVE_VISITORS_INTERVAL: '2',
  };
  const workers = fleetWorkers(names, script, bindings);
  options = { host: '127.0.0.1', port: 0, durableObjectsPersist: persist, handleRuntimeStdio: stdio.handleRuntimeStdio, workers };
  await start();
}, 120_000);

afterAll(async () => {
  await miniflare?.dispose();
  await emulator?.close();
  rmSync(persist, { recursive: true, force: true });
});

const count = (url: string) => fetch(`${url}/api/v1/realtime?websiteId=${OWNER.id}`);

async function answersSoon(url: string, status: number): Promise<number> {
  let seen = 0;
  for (let attempt = 0; attempt < 60 && seen !== status; attempt += 1) {
    const response = await count(url);
    seen = response.status;
    await response.arrayBuffer();
    if (seen !== status) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return seen;
}

describe('registrations in a Durable Object (workerd)', () => {
  it('registers on one isolate, serves on the other, survives a restart, and keeps no token in the storage', async () => {
    expect((await count(urls[1]!)).status).toBe(404);
    const put = await fetch(`${urls[0]}/api/v1/websites/${OWNER.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${OWNER.token}` },
    });
    expect(put.status).toBe(201);
    // The other isolate looks at the keeper within half its 2 s interval.
    expect(await answersSoon(urls[1]!, 200)).toBe(200);

    await miniflare.dispose();
    await start();
    expect(await answersSoon(urls[1]!, 200)).toBe(200);

    const files = (function walk(folder: string): string[] {
      return readdirSync(folder).flatMap((name) => {
        const path = join(folder, name);
        return statSync(path).isDirectory() ? walk(path) : [path];
      });
    })(persist);
    const stored = files.map((path) => readFileSync(path).toString('latin1')).join('\n');
    expect(stored).toContain(OWNER.id);
    const lower = stored.toLowerCase();
    expect(secretForms(OWNER.token).filter((form) => lower.includes(form.toLowerCase()))).toEqual([]);
  });

  it('forgets a removal on every isolate', async () => {
    const removed = await fetch(`${urls[1]}/api/v1/websites/${OWNER.id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${OWNER.token}` },
    });
    expect(removed.status).toBe(204);
    expect(await answersSoon(urls[0]!, 404)).toBe(404);
  });

  it('gives back the latest event of an hourly counter, and only one', async () => {
    // The keeper itself over JS RPC: the store's module imports cloudflare:workers, which Node cannot.
    const namespace = (await miniflare.getDurableObjectNamespace('REGISTRATIONS', names[0])) as unknown as {
      idFromName(name: string): unknown;
      get(id: unknown): {
        takeHourly(counter: string, nowMs: number, limit: number): Promise<{ taken: boolean }>;
        giveBackHourly(counter: string): Promise<void>;
      };
    };
    const store = namespace.get(namespace.idFromName('give-back'));
    const now = Date.now();
    expect((await store.takeHourly('website:given', now, 2)).taken).toBe(true);
    expect((await store.takeHourly('website:given', now + 1, 2)).taken).toBe(true);
    await store.giveBackHourly('website:given');
    expect((await store.takeHourly('website:given', now + 2, 2)).taken).toBe(true);
    expect((await store.takeHourly('website:given', now + 3, 2)).taken).toBe(false);
  });
});
