// @vitest-environment node
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type LoopbackServer, serveOnLoopback } from '../../test/browser/support/loopback-server.js';
import { launchCommand } from '../../test/support/command-process.js';
import { eventually } from '../../test/support/network.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { type RelayInstance, sleep, startInstance, stopInstance } from './support/relay-processes.js';

/**
 * The registration store's integrity (issue 35, findings 3 to 5), black-box: relays as real
 * processes (`relay/src/cli.ts`) on a real Redis and on the file store, `rotate-keys` as its own
 * process, a stand-in service on loopback that accepts any token (slowly for some), and a hostile
 * loopback server that a tampered record names.
 */

const OLD_KEY = `old:${btoa('o'.repeat(32))}`;
const NEW_KEY = `new:${btoa('n'.repeat(32))}`;
const OWNER_TOKEN = 'tokOwner-SECRET-1111';
const SQUATTER_TOKEN = 'tokSquat-SECRET-2222';
const REPLACED_TOKEN = 'tokAgain-SECRET-3333';

/** The contract's service for any website and token: a slow proof for the tokens in `slowMs`. */
interface StandInService {
  readonly server: LoopbackServer;
  readonly slowMs: Map<string, number>;
}

interface Backend {
  readonly name: string;
  /** The config fields that name the store, for a test's own key space. */
  storeFields(label: string): Record<string, unknown>;
  /** Every stored record by website id, as the store holds it. */
  records(label: string): Promise<Record<string, Record<string, unknown>>>;
  /** Changes one stored record as someone with access to the store (not to the keys) would. */
  tamper(label: string, websiteId: string, change: (record: Record<string, unknown>) => Record<string, unknown>): Promise<void>;
  /** Relays on one store: Redis is shared by a fleet, a file by one instance. */
  readonly instances: number;
}

let redis: RedisServer;
let inspector: ReturnType<typeof createClient>;
let service: StandInService;
let hostile: LoopbackServer;
const hostileRequests: string[] = [];
let folder: string;
const started: RelayInstance[] = [];

beforeAll(async () => {
  const slowMs = new Map<string, number>();
  const serviceServer = await serveOnLoopback(async (request) => {
    const url = new URL(request.url);
    const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
    await sleep(slowMs.get(token) ?? 0);
    if (url.pathname !== '/api/v1/realtime') return Response.json({ error: 'Not found' }, { status: 404 });
    const websiteId = url.searchParams.get('websiteId') ?? '';
    return Response.json({ currentVisitors: 7, websiteId, timestamp: new Date().toISOString() });
  });
  service = { server: serviceServer, slowMs };
  [redis, hostile, folder] = await Promise.all([
    startRedisServer(),
    serveOnLoopback((request) => {
      hostileRequests.push(`${request.method} ${request.url} ${request.headers.get('authorization') ?? ''}`);
      return Response.json({ currentVisitors: 100_000_000, websiteId: 'x', timestamp: new Date().toISOString() });
    }),
    mkdtemp(join(tmpdir(), 'relay-integrity-')),
  ]);
  inspector = createClient({ url: redis.url });
  inspector.on('error', () => {});
  await inspector.connect();
}, 30_000);

afterAll(async () => {
  await Promise.all(started.map(stopInstance));
  await inspector?.quit().catch(() => {});
  await Promise.all([redis?.close(), service?.server.close(), hostile?.close(), folder && rm(folder, { recursive: true, force: true })]);
});

const BACKENDS: readonly Backend[] = [
  {
    name: 'Redis',
    instances: 2,
    storeFields: (label) => ({ store: redis.url, storePrefix: `${label}:` }),
    async records(label) {
      const hash = await inspector.hGetAll(`${label}:registrations`);
      return Object.fromEntries(Object.entries(hash).map(([id, text]) => [id, JSON.parse(text) as Record<string, unknown>]));
    },
    async tamper(label, websiteId, change) {
      const text = await inspector.hGet(`${label}:registrations`, websiteId);
      await inspector.hSet(`${label}:registrations`, websiteId, JSON.stringify(change(JSON.parse(text!))));
      // What a fleet watches for a change, moved as any writer would.
      await inspector.incr(`${label}:registrations:version`);
    },
  },
  {
    name: 'the file store',
    instances: 1,
    storeFields: (label) => ({ registrationsFile: join(folder, `${label}.json`) }),
    async records(label) {
      const text = await readFile(join(folder, `${label}.json`), 'utf8');
      return (JSON.parse(text) as { registrations: Record<string, Record<string, unknown>> }).registrations;
    },
    async tamper(label, websiteId, change) {
      const path = join(folder, `${label}.json`);
      const json = JSON.parse(await readFile(path, 'utf8')) as { registrations: Record<string, Record<string, unknown>> };
      json.registrations[websiteId] = change(json.registrations[websiteId]!);
      await writeFile(path, JSON.stringify(json, null, 1));
    },
  },
];

/** A relay config on the test's stand-in service and `label`'s store, written as `{name}.config.json`. */
async function writeConfig(label: string, backend: Backend, encryptionKeys: readonly string[], name = label): Promise<string> {
  const path = join(folder, `${name}.config.json`);
  const config = {
    upstream: service.server.url,
    selfServe: true,
    encryptionKeys,
    interval: 1,
    maxStale: 30,
    hourlyBudget: 1_000_000,
    registrationsPerHour: 100_000,
    maxWebsites: 10_000,
    ...backend.storeFields(label),
  };
  await writeFile(path, JSON.stringify(config));
  return path;
}

/** Relay processes for one test, stopped when it ends (each is a Node process on a shared machine). */
async function startFleet(configPath: string, count: number): Promise<RelayInstance[]> {
  const fleet = await Promise.all(Array.from({ length: count }, () => startInstance(configPath)));
  started.push(...fleet);
  onTestFinished(() => Promise.all(fleet.map(stopInstance)).then(() => undefined));
  return fleet;
}

function put(instance: RelayInstance, websiteId: string, token: string, body: unknown = {}): Promise<Response> {
  return fetch(`${instance.url}/api/v1/websites/${websiteId}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

function remove(instance: RelayInstance, websiteId: string, token: string): Promise<Response> {
  return fetch(`${instance.url}/api/v1/websites/${websiteId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
}

async function countStatus(instance: RelayInstance, websiteId: string): Promise<number> {
  const response = await fetch(`${instance.url}/api/v1/realtime?websiteId=${websiteId}`);
  await response.arrayBuffer();
  return response.status;
}

/** Asks until the instance answers `status`, for five seconds at most; the last status seen. */
async function answersSoon(instance: RelayInstance, websiteId: string, status: number): Promise<number> {
  let seen = 0;
  for (let attempt = 0; attempt < 100 && seen !== status; attempt += 1) {
    seen = await countStatus(instance, websiteId);
    if (seen !== status) await sleep(50);
  }
  return seen;
}

/** Registers `websiteId` for a test's setup: a 503 (a store slow on a busy machine) is asked again. */
async function seed(instance: RelayInstance, websiteId: string): Promise<void> {
  let answer = '';
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const response = await put(instance, websiteId, OWNER_TOKEN);
    if (response.status === 201) return;
    answer = `${response.status} ${await response.text()}`;
    if (response.status !== 503) break;
  }
  throw new Error(`could not register ${websiteId} for the test: ${answer}`);
}

const logOf = (instance: RelayInstance) => `${instance.process.out()}${instance.process.err()}`;

describe.each(BACKENDS)('registrations on $name', (backend) => {
  it('two registrations of one new id: one wins, the other gets 409, and the winner stays registered', async () => {
    const label = `race-${backend.instances}`;
    const fleet = await startFleet(await writeConfig(label, backend, [OLD_KEY]), backend.instances);
    service.slowMs.set(SQUATTER_TOKEN, 1_500);
    // The squatter asks first; its proof answers slowly, so the owner's registration lands meanwhile.
    const squatting = put(fleet.at(-1)!, 'raced-shop', SQUATTER_TOKEN, { allowOrigins: ['https://squatter.example'] });
    await sleep(200);
    const owner = await put(fleet[0]!, 'raced-shop', OWNER_TOKEN, { allowOrigins: ['https://owner.example'] });
    expect(owner.status).toBe(201);
    const squatter = await squatting;
    expect(squatter.status).toBe(409);
    expect(((await squatter.json()) as { error: string }).error).toMatch(/raced-shop/);

    const stored = (await backend.records(label))['raced-shop']!;
    expect(stored.allowOrigins).toEqual(['https://owner.example']);
    expect(stored.tokenEnding).toBe(OWNER_TOKEN.slice(-4));
    // The owner replaces its own registration as before.
    expect((await put(fleet[0]!, 'raced-shop', OWNER_TOKEN, { allowOrigins: ['https://owner.example'] })).status).toBe(200);
  }, 60_000);

  it('a record changed in the store fails closed for that website alone, on every instance, with one log line', async () => {
    const label = `tamper-${backend.instances}`;
    const configPath = await writeConfig(label, backend, [OLD_KEY]);
    const fleet = await startFleet(configPath, backend.instances);
    expect((await put(fleet[0]!, 'tampered-shop', OWNER_TOKEN, { allowOrigins: ['https://owner.example'] })).status).toBe(201);
    expect((await put(fleet[0]!, 'untouched-shop', OWNER_TOKEN)).status).toBe(201);
    for (const instance of fleet) expect(await answersSoon(instance, 'tampered-shop', 200)).toBe(200);
    const logBefore = fleet.map((instance) => logOf(instance).length);

    // Who may read the count, and where the token would go: neither key nor ciphertext touched.
    await backend.tamper(label, 'tampered-shop', (record) => ({
      ...record,
      allowOrigins: ['https://attacker.example'],
      source: { kind: 'fathom', base: hostile.url, siteId: 'stolen' },
    }));
    const restarted = await startFleet(configPath, 1);
    for (const instance of [...fleet, ...restarted]) {
      expect(await answersSoon(instance, 'tampered-shop', 502)).toBe(502);
      expect(await countStatus(instance, 'untouched-shop')).toBe(200);
    }
    // Asked again: still refused, and said once.
    for (const instance of [...fleet, ...restarted]) expect(await countStatus(instance, 'tampered-shop')).toBe(502);
    const lines = [...fleet, ...restarted].map((instance, index) =>
      logOf(instance)
        .slice(logBefore[index] ?? 0)
        .split('\n')
        .filter((line) => line.includes('tampered-shop')),
    );
    for (const instanceLines of lines) expect(instanceLines).toHaveLength(1);
    expect(hostileRequests).toEqual([]);
  }, 60_000);

  it('rotate-keys leaves a record deleted or replaced during the rotation deleted or replaced', async () => {
    const label = `rotation-${backend.instances}`;
    const fleet = await startFleet(await writeConfig(label, backend, [OLD_KEY]), backend.instances);
    // Enough records that the rotation is caught part way.
    const ids = Array.from({ length: backend.instances > 1 ? 1_000 : 300 }, (_, index) => `rotated-${String(index).padStart(4, '0')}`);
    for (let start = 0; start < ids.length; start += 10) await Promise.all(ids.slice(start, start + 10).map((id) => seed(fleet[0]!, id)));

    const rotationConfig = await writeConfig(label, backend, [NEW_KEY, OLD_KEY], `${label}-rotate`);
    const rotation = launchCommand('relay/src/cli.ts', ['rotate-keys', '--config', rotationConfig]);
    const keyIds = async () =>
      Object.entries(await backend.records(label).catch(() => ({}))).map(
        ([id, record]) => [id, (record.token as { keyId: string }).keyId] as const,
      );
    await eventually(async () => (await keyIds()).some(([, keyId]) => keyId === 'new'), 30_000, 'the rotation to begin');
    rotation.child.kill('SIGSTOP');
    const stillOld = (await keyIds()).filter(([, keyId]) => keyId === 'old').map(([id]) => id);
    expect(stillOld.length, 'the rotation ended before it could be caught').toBeGreaterThanOrEqual(6);
    const [deleted, replaced] = [stillOld.slice(-3), stillOld.slice(-6, -3)];

    const changes = Promise.all([
      ...deleted.map((id) => remove(fleet[0]!, id, OWNER_TOKEN)),
      ...replaced.map((id) => put(fleet.at(-1)!, id, REPLACED_TOKEN, { allowOrigins: ['https://replaced.example'] })),
    ]);
    await sleep(300);
    rotation.child.kill('SIGCONT');
    expect((await changes).map((response) => response.status)).toEqual([204, 204, 204, 200, 200, 200]);
    expect(await rotation.exited).toBe(0);

    const after = await backend.records(label);
    for (const id of deleted) expect(after[id], id).toBeUndefined();
    for (const id of replaced) {
      expect(after[id]?.allowOrigins, id).toEqual(['https://replaced.example']);
      expect(after[id]?.tokenEnding, id).toBe(REPLACED_TOKEN.slice(-4));
    }
    for (const id of deleted) expect(await answersSoon(fleet.at(-1)!, id, 404)).toBe(404);
  }, 120_000);
});
