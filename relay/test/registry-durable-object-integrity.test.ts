// @vitest-environment node
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackServer, serveOnLoopback } from '../../test/browser/support/loopback-server.js';
import { bundleWorker, captureOutput } from './runtimes/workerd-support.js';
import { fleetWorkers } from './support/fleet-workers.js';
import { sleep } from './support/relay-processes.js';

/**
 * The Durable Object store's compare-and-set and whole-record authentication (issue 35), in workerd
 * (Miniflare): two isolates of one fleet bind one `RegistrationKeeper`; a stand-in service on
 * loopback accepts any token, slowly for some. Cloudflare itself was not run.
 */
const OWNER_TOKEN = 'tokOwner-SECRET-1111';
const SQUATTER_TOKEN = 'tokSquat-SECRET-2222';
const KEY = `w1:${btoa('w'.repeat(32))}`;
const WORKER = fileURLToPath(new URL('./registry-durable-object-worker.ts', import.meta.url));
const names = ['relay-0', 'relay-1'];

/** The keeper over JS RPC, as the store's module (which imports cloudflare:workers) calls it. */
interface Keeper {
  get(websiteId: string): Promise<string | null>;
  put(websiteId: string, record: string, expectedSealed: string): Promise<boolean>;
  remove(websiteId: string, expectedSealed: string): Promise<boolean>;
}

const slowMs = new Map<string, number>();
let service: LoopbackServer;
let miniflare: Miniflare;
let urls: string[];
const persist = mkdtempSync(join(tmpdir(), 'relay-registrations-do-integrity-'));
const stdio = captureOutput();

beforeAll(async () => {
  service = await serveOnLoopback(async (request) => {
    const url = new URL(request.url);
    const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
    await sleep(slowMs.get(token) ?? 0);
    const websiteId = url.searchParams.get('websiteId') ?? '';
    return Response.json({ currentVisitors: 7, websiteId, timestamp: new Date().toISOString() });
  });
  const bindings = {
    LIVE_VISITORS_UPSTREAM: service.url,
    LIVE_VISITORS_SELF_SERVE: 'true',
    LIVE_VISITORS_ENCRYPTION_KEYS: KEY,
    LIVE_VISITORS_INTERVAL: '2',
  };
  const workers = fleetWorkers(names, await bundleWorker(WORKER), bindings);
  miniflare = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    durableObjectsPersist: persist,
    handleRuntimeStdio: stdio.handleRuntimeStdio,
    workers,
  });
  await miniflare.ready;
  urls = await Promise.all(names.map(async (name) => (await miniflare.unsafeGetDirectURL(name)).origin));
}, 120_000);

afterAll(async () => {
  await miniflare?.dispose();
  await service?.close();
  rmSync(persist, { recursive: true, force: true });
});

async function keeper(): Promise<Keeper> {
  const namespace = (await miniflare.getDurableObjectNamespace('REGISTRATIONS', names[0])) as unknown as {
    idFromName(name: string): unknown;
    get(id: unknown): Keeper;
  };
  // The relay's own object: DurableObjectRegistrationStore's default name.
  return namespace.get(namespace.idFromName('live-visitors-relay'));
}

function put(url: string, websiteId: string, token: string, body: unknown = {}): Promise<Response> {
  return fetch(`${url}/api/v1/websites/${websiteId}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

async function answersSoon(url: string, websiteId: string, status: number): Promise<number> {
  let seen = 0;
  for (let attempt = 0; attempt < 60 && seen !== status; attempt += 1) {
    const response = await fetch(`${url}/api/v1/realtime?websiteId=${websiteId}`);
    seen = response.status;
    await response.arrayBuffer();
    if (seen !== status) await sleep(100);
  }
  return seen;
}

const sealedOf = (text: string | null) => (text === null ? '' : (JSON.parse(text) as { token: { sealed: string } }).token.sealed);

describe('registrations in a Durable Object (workerd): compare-and-set and tampering', () => {
  it('two registrations of one new id on two isolates: one wins, the other gets 409', async () => {
    slowMs.set(SQUATTER_TOKEN, 1_500);
    const squatting = put(urls[1]!, 'do-raced', SQUATTER_TOKEN, { allowOrigins: ['https://squatter.example'] });
    await sleep(200);
    expect((await put(urls[0]!, 'do-raced', OWNER_TOKEN, { allowOrigins: ['https://owner.example'] })).status).toBe(201);
    expect((await squatting).status).toBe(409);
    const stored = JSON.parse((await (await keeper()).get('do-raced'))!) as { allowOrigins: string[]; tokenEnding: string };
    expect(stored).toMatchObject({ allowOrigins: ['https://owner.example'], tokenEnding: OWNER_TOKEN.slice(-4) });
  }, 60_000);

  it('the keeper writes and removes only the record the writer read', async () => {
    const store = await keeper();
    expect((await put(urls[0]!, 'do-cas', OWNER_TOKEN)).status).toBe(201);
    const text = (await store.get('do-cas'))!;
    const other = JSON.stringify({ ...JSON.parse(text), token: { keyId: 'w1', iv: 'AAAAAAAAAAAAAAAA', sealed: 'b3RoZXI=' } });
    // Expected none, or another record: refused, nothing written.
    expect(await store.put('do-cas', other, '')).toBe(false);
    expect(await store.put('do-cas', other, 'bm90IGl0')).toBe(false);
    expect(await store.remove('do-cas', 'bm90IGl0')).toBe(false);
    expect(await store.get('do-cas')).toBe(text);
    // Expected the stored one: done.
    expect(await store.put('do-cas', other, sealedOf(text))).toBe(true);
    expect(await store.remove('do-cas', sealedOf(text))).toBe(false);
    expect(await store.remove('do-cas', 'b3RoZXI=')).toBe(true);
    expect(await store.get('do-cas')).toBeNull();
  }, 30_000);

  it('a record changed in the storage fails closed for that website alone, on every isolate', async () => {
    expect((await put(urls[0]!, 'do-tampered', OWNER_TOKEN, { allowOrigins: ['https://owner.example'] })).status).toBe(201);
    expect((await put(urls[0]!, 'do-untouched', OWNER_TOKEN)).status).toBe(201);
    for (const url of urls) expect(await answersSoon(url, 'do-tampered', 200)).toBe(200);
    const before = stdio.output().length;

    const store = await keeper();
    const text = (await store.get('do-tampered'))!;
    const tampered = JSON.stringify({ ...JSON.parse(text), allowOrigins: ['https://attacker.example'] });
    await store.put('do-tampered', tampered, sealedOf(text));
    expect(await store.get('do-tampered')).toBe(tampered);

    for (const url of urls) {
      expect(await answersSoon(url, 'do-tampered', 502)).toBe(502);
      expect(await answersSoon(url, 'do-untouched', 200)).toBe(200);
    }
    const lines = stdio
      .output()
      .slice(before)
      .split('\n')
      .filter((line) => line.includes('do-tampered'));
    // One line per isolate that read it, however often it was asked.
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(names.length);
  }, 60_000);
});
