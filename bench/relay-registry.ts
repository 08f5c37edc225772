// A self-serving relay (issue 31 §1): the cached path with 10,000 registered websites against 1, the memory each
// registration costs, the time from PUT to the first served count, and a fleet of 3 over one simulated hour.

import { startEmulatorServer } from '../emulator/src/index.js';
import { RedisRegistrationStore } from '../relay/src/registry/redis-registration-store.js';
import type { WebsiteRegistry } from '../relay/src/registry/website-registry.js';
import { createRelay, type RelayHandler, type RelayOptions } from '../relay/src/relay.js';
import { RedisStore } from '../relay/src/store/redis-store.js';
import { startRedisServer } from '../relay/test/support/redis-server.js';
import { serveOnNode } from '../server-kit/serve.js';
import { measureInTurns, type Run } from './load-in-turns.js';
import { printTable, ratio } from './table.js';

const HOUR_MS = 60 * 60_000;
const KEYS = [`bench:${btoa('k'.repeat(32))}`];
const MANY = 10_000;
const FLEET_WEBSITES = 1_000;
const SHOPPERS = 50;
const INTERVAL_SECONDS = 60;

const tokenOf = (websiteId: string) => `token-${websiteId}`;
const idsOf = (count: number) => Array.from({ length: count }, (_, index) => `site-${String(index).padStart(5, '0')}`);

/** A service that knows every `site-…` website with its token, answering at once; counts what it is asked. */
function stubService(now: () => number) {
  let requests = 0;
  const fetch: NonNullable<RelayOptions['fetch']> = async (input, init) => {
    requests += 1;
    const websiteId = new URL(input).searchParams.get('websiteId') ?? '';
    if (new Headers(init.headers).get('authorization') !== `Bearer ${tokenOf(websiteId)}`) {
      return Response.json({ error: 'Unauthorized' }, { status: 401 });
    }
    return Response.json({ currentVisitors: 23, websiteId, timestamp: new Date(now()).toISOString() });
  };
  return { fetch, requests: () => requests };
}

function selfServingConfig(overrides: Record<string, unknown> = {}) {
  return {
    upstream: 'https://analytics.example',
    selfServe: true,
    encryptionKeys: KEYS,
    registrationsMayBeLost: true,
    registrationsPerHour: 100_000,
    maxWebsites: 100_000,
    hourlyBudget: 1_000_000,
    interval: INTERVAL_SECONDS,
    ...overrides,
  };
}

async function registerAll(relay: RelayHandler, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const answer = await relay(
      new Request(`http://relay.test/api/v1/websites/${id}`, { method: 'PUT', headers: { Authorization: `Bearer ${tokenOf(id)}` } }),
    );
    if (answer.status !== 201) throw new Error(`registering ${id} answered ${answer.status}: ${await answer.text()}`);
  }
}

function heapAfterGc(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/** The cached path on loopback, one registered website against 10,000, and the heap each registration holds. */
async function cachedPathAndMemory(): Promise<void> {
  const service = stubService(Date.now);
  const options = { fetch: service.fetch, log: () => undefined, clientAddress: () => 'bench' };
  const one = createRelay({ ...options, config: selfServingConfig({ interval: 3_600, maxStale: 3_600 }) });
  await registerAll(one, idsOf(1));
  const heapBefore = heapAfterGc();
  const many = createRelay({ ...options, config: selfServingConfig({ interval: 3_600, maxStale: 3_600 }) });
  const started = performance.now();
  await registerAll(many, idsOf(MANY));
  const registerMs = performance.now() - started;
  const heapRegistered = heapAfterGc();
  // Each website served once: its answer now sits in its cache too.
  for (const id of idsOf(MANY)) await many(new Request(`http://relay.test/api/v1/realtime?websiteId=${id}`));
  const heapServed = heapAfterGc();
  const servers = await Promise.all([one, many].map((relay) => serveOnNode(relay, { port: 0, graceMs: 0 })));
  try {
    const last = idsOf(MANY).at(-1)!;
    const [single, tenThousand] = (await measureInTurns([
      `${servers[0]!.url}/api/v1/realtime?websiteId=${idsOf(1)[0]}`,
      `${servers[1]!.url}/api/v1/realtime?websiteId=${last}`,
    ])) as [Run, Run];
    printTable(
      'Self-serving relay, cached path on loopback (autocannon, median of the runs in turns): one registered website against 10,000',
      [
        { registered: 1, run: single },
        { registered: MANY, run: tenThousand },
      ].map(({ registered, run }) => ({
        'registered websites': registered.toLocaleString('en-US'),
        'requests/s': Math.round(run.requestsPerSecond).toLocaleString('en-US'),
        ratio: ratio(run.requestsPerSecond, single.requestsPerSecond),
        p50: `${run.p50Ms} ms`,
        p99: `${run.p99Ms} ms`,
        failures: run.failures,
      })),
    );
    const gc = typeof (globalThis as { gc?: unknown }).gc === 'function' ? 'after a full GC' : 'without --expose-gc: noisier';
    printTable(`Heap per registered website (${MANY.toLocaleString('en-US')} registered in ${(registerMs / 1000).toFixed(1)} s, ${gc})`, [
      {
        state: 'registered (record, decrypted token, cache, CORS policy)',
        'bytes / website': Math.round((heapRegistered - heapBefore) / MANY),
      },
      { state: 'and served once (its answer cached)', 'bytes / website': Math.round((heapServed - heapBefore) / MANY) },
    ]);
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
}

/** Over real HTTP against the emulator: PUT, then GET until the count is served; the median of 20. */
async function putToFirstCount(): Promise<void> {
  const ids = idsOf(20);
  const emulator = await startEmulatorServer({
    port: 0,
    config: { websites: ids.map((id) => ({ id, token: tokenOf(id), plan: 'enterprise' as const })) },
  });
  const relay = createRelay({ config: selfServingConfig({ upstream: emulator.url }), log: () => undefined });
  const server = await serveOnNode(relay, { port: 0, graceMs: 0 });
  const times: number[] = [];
  try {
    for (const id of ids) {
      const started = performance.now();
      const put = await fetch(`${server.url}/api/v1/websites/${id}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${tokenOf(id)}` },
      });
      if (put.status !== 201) throw new Error(`PUT answered ${put.status}`);
      const get = await fetch(`${server.url}/api/v1/realtime?websiteId=${id}`);
      if (get.status !== 200) throw new Error(`GET answered ${get.status}`);
      await get.text();
      times.push(performance.now() - started);
    }
  } finally {
    await Promise.all([server.close(), emulator.close()]);
  }
  times.sort((a, b) => a - b);
  printTable('From PUT /api/v1/websites/{id} to the first served count, over loopback HTTP against the emulator (20 registrations)', [
    { measure: 'median', time: `${times[10]!.toFixed(1)} ms` },
    { measure: 'slowest', time: `${times.at(-1)!.toFixed(1)} ms` },
  ]);
}

/**
 * A fleet of 3 sharing one real Redis, 1,000 registered websites, 50 shoppers each asking once per
 * interval, over one hour of an injected clock (a real hour is not affordable here): every shopper's
 * request goes to the next instance in turn, as a load balancer spreads them, and is awaited before
 * the next, so no wait is on the system clock. The service is a stub that counts.
 */
async function fleetHour(): Promise<void> {
  const redis = await startRedisServer();
  let clock = Date.parse('2026-11-27T10:00:00.000Z');
  const now = () => clock;
  const service = stubService(now);
  const prefix = 'bench-registry:';
  const stores = await Promise.all(
    [0, 1, 2].map(async () => ({
      store: await RedisStore.connect({ url: redis.url, prefix, log: () => undefined }),
      registrationStore: await RedisRegistrationStore.connect({ url: redis.url, prefix, log: () => undefined }),
    })),
  );
  try {
    const config = selfServingConfig({ registrationsMayBeLost: false, store: redis.url, storePrefix: prefix, maxStale: 600 });
    const fleet = stores.map(({ store, registrationStore }) =>
      createRelay({ config, store, registrationStore, now, fetch: service.fetch, log: () => undefined, clientAddress: () => 'bench' }),
    );
    const ids = idsOf(FLEET_WEBSITES);
    await registerAll(fleet[0]!, ids);
    // The other two read the registrations once before the hour starts (in service they would within one interval).
    await Promise.all(fleet.map((relay) => (relay.registrations as WebsiteRegistry).sync()));
    const checks = service.requests();
    const stepMs = (INTERVAL_SECONDS * 1000) / SHOPPERS;
    let turn = 0;
    let notServed = 0;
    const served = async (answer: Response | Promise<Response>) => {
      if ((await answer).status !== 200) notServed += 1;
    };
    for (const end = clock + HOUR_MS; clock < end; clock += stepMs) {
      for (const id of ids) {
        const answer = fleet[turn % 3]!(new Request(`http://relay.test/api/v1/realtime?websiteId=${id}`));
        turn += 1;
        if (answer instanceof Promise) await served(answer);
        else if (answer.status !== 200) notServed += 1;
      }
    }
    const perWebsite = (service.requests() - checks) / FLEET_WEBSITES;
    printTable(
      `Fleet of 3 on one Redis, one hour of an injected clock: ${FLEET_WEBSITES.toLocaleString('en-US')} registered websites × ${SHOPPERS} shoppers ` +
        `each asking once per ${INTERVAL_SECONDS} s interval (${turn.toLocaleString('en-US')} requests), counted at a stub service`,
      [
        {
          'upstream requests': (service.requests() - checks).toLocaleString('en-US'),
          'per website': perWebsite.toFixed(2),
          'vs the goal (60)': ratio(perWebsite, 60),
          'registration checks': checks.toLocaleString('en-US'),
          'answers other than 200': notServed,
        },
      ],
    );
  } finally {
    await Promise.all(stores.flatMap(({ store, registrationStore }) => [store.close(), registrationStore.close()]));
    await redis.close();
  }
}

export async function benchRelayRegistry(): Promise<void> {
  await cachedPathAndMemory();
  await putToFirstCount();
  await fleetHour();
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRelayRegistry();
