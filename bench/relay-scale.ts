// A relay for many shops (issue 38): per number of registered websites, a relay started as a separate
// process against one real Redis holding that many registrations written the relay's own way
// (sealed tokens, through the Redis registration store's write path), measured for its start,
// memory, a registration made elsewhere, its cached path against a relay with 1 registered, and
// the slowest command Redis logged. Every wait is bounded and says so when the bound is reached.
// `npx tsx bench/relay-scale.ts` runs it alone; BENCH_SCALE_SIZES=1000,10000 picks the sizes.

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { RedisRegistrationStore } from '../relay/src/registry/redis-registration-store.js';
import { TokenCipher } from '../relay/src/registry/token-cipher.js';
import { startRedisServer } from '../relay/test/support/redis-server.js';
import { measureInTurns, type Run } from './load-in-turns.js';
import { type ProcessReport, type RelayProcess, sleep, startRelayProcess } from './relay-process.js';
import { printTable, ratio } from './table.js';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const KEYS = [`bench:${btoa('k'.repeat(32))}`];
/** How long a registered website may take to be first served, or a new registration to reach another instance. */
const ANSWER_BOUND_MS = 30_000;
const REQUEST_BOUND_MS = 10_000;
const POLL_MS = 50;
/** New registrations measured on the other instance, one after the other. */
const REGISTRATIONS_MEASURED = 3;
/** Commands Redis logs in SLOWLOG: 1 ms and slower. */
const SLOWLOG_FROM_MICROS = 1_000;

const tokenOf = (websiteId: string) => `token-${websiteId}`;
const idOf = (index: number) => `site-${String(index).padStart(7, '0')}`;
const realtime = (relay: RelayProcess, websiteId: string) => `${relay.url}/api/v1/realtime?websiteId=${websiteId}`;
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const secondsText = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** A service that knows every website whose token is `token-{id}`, answering at once on loopback. */
async function startStubService(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const websiteId = new URL(request.url ?? '/', 'http://stub').searchParams.get('websiteId') ?? '';
    const authorized = request.headers.authorization === `Bearer ${tokenOf(websiteId)}`;
    response.writeHead(authorized ? 200 : 401, { 'Content-Type': 'application/json' });
    response.end(
      JSON.stringify(authorized ? { currentVisitors: 23, websiteId, timestamp: new Date().toISOString() } : { error: 'Unauthorized' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes registrations as the relay's registry does after its check with the service: the token sealed, the record put through the store. */
class Seeder {
  readonly #store: RedisRegistrationStore;
  readonly #cipher = new TokenCipher(KEYS);

  constructor(store: RedisRegistrationStore) {
    this.#store = store;
  }

  async register(websiteId: string): Promise<void> {
    const token = tokenOf(websiteId);
    const record = await this.#cipher.seal(
      { websiteId, allowOrigins: null, hourlyBudget: 100, tokenEnding: token.slice(-4), shop: null, source: null, savedAtMs: Date.now() },
      token,
    );
    // A fresh id each time: nothing is stored under it yet (a retried write may have landed: then it is there already).
    await this.#store.put(record, null);
  }

  /** `from` to `to` (exclusive), a hundred at a time; a write the store's 500 ms bound cut off (a busy machine) is tried again, boundedly. */
  async registerRange(from: number, to: number): Promise<void> {
    const batch = 100;
    for (let start = from; start < to; start += batch) {
      const ids = Array.from({ length: Math.min(batch, to - start) }, (_, offset) => idOf(start + offset));
      await Promise.all(ids.map((id) => this.#registerWithRetries(id)));
    }
  }

  async #registerWithRetries(websiteId: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.register(websiteId);
      } catch (error) {
        if (attempt === 20) throw error;
        await sleep(Math.min(200 * attempt, 2_000));
      }
    }
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}

async function status(url: string): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** ms until `url` answers 200, asked every 50 ms; null when it did not within the bound. */
async function untilServed(url: string): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < ANSWER_BOUND_MS) {
    if ((await status(url)) === 200) return performance.now() - started;
    await sleep(POLL_MS);
  }
  return null;
}

const served = (ms: number | null) => (ms === null ? `did not answer within ${ANSWER_BOUND_MS / 1000} s` : secondsText(ms));

function relayConfig(upstream: string, store: string, storePrefix: string) {
  return {
    upstream,
    selfServe: true,
    store,
    storePrefix,
    encryptionKeys: KEYS,
    maxWebsites: 1_000_000,
    registrationsPerHour: 100_000,
    hourlyBudget: 1_000_000,
    // The hot website's answer stays fresh through the load runs: the cached path.
    interval: 3_600,
    maxStale: 3_600,
  };
}

interface Admin {
  resetSlowlog(): Promise<void>;
  slowest(prefix: string): Promise<string>;
  close(): Promise<void>;
}

async function redisAdmin(url: string): Promise<Admin> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  await client.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', String(SLOWLOG_FROM_MICROS)]);
  await client.sendCommand(['CONFIG', 'SET', 'slowlog-max-len', '10000']);
  return {
    async resetSlowlog() {
      await client.sendCommand(['SLOWLOG', 'RESET']);
    },
    /** The slowest logged command on the relay's keys: its name and first key, and how long it blocked Redis. */
    async slowest(prefix: string) {
      const entries = (await client.sendCommand(['SLOWLOG', 'GET', '10000'])) as unknown as Array<[number, number, number, string[]]>;
      const relays = entries.filter(([, , , args]) => args.some((arg) => String(arg).startsWith(prefix)));
      if (relays.length === 0) return `none ≥ ${SLOWLOG_FROM_MICROS / 1000} ms`;
      const [, , micros, args] = relays.reduce((worst, entry) => (entry[2] > worst[2] ? entry : worst));
      const key = args.find((arg) => String(arg).startsWith(prefix)) ?? '';
      return `${String(args[0]).toUpperCase()} ${key.slice(prefix.length)}: ${(micros / 1000).toFixed(1)} ms (${relays.length} ≥ 1 ms)`;
    },
    close: () => client.close(),
  };
}

interface SizeResult {
  readonly size: number;
  readonly listenedAfterMs: number;
  readonly firstAnswerMs: number | null;
  readonly afterStart: ProcessReport;
  readonly afterServing: ProcessReport;
  readonly servedShare: string;
  readonly registrationMs: Array<number | null>;
  readonly registrationCpuMs: number[];
  readonly cached: Run;
  readonly cachedFlowing: Run;
  readonly slowest: string;
}

export async function benchRelayScale(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'relay-scale-'));
  const [redis, service] = await Promise.all([startRedisServer(), startStubService()]);
  const admin = await redisAdmin(redis.url);
  const prefix = 'scale:';
  const seeder = new Seeder(await RedisRegistrationStore.connect({ url: redis.url, prefix, log: () => undefined }));
  const oneSeeder = new Seeder(await RedisRegistrationStore.connect({ url: redis.url, prefix: 'scale-one:', log: () => undefined }));
  const relays: RelayProcess[] = [];
  try {
    await oneSeeder.registerRange(0, 1);
    const one = await startRelayProcess(directory, 'one', relayConfig(service.url, redis.url, 'scale-one:'));
    relays.push(one);
    const oneFirstMs = await untilServed(realtime(one, idOf(0)));
    const oneReport = await one.report();
    const results: SizeResult[] = [];
    let seeded = 0;
    let fresh = 0;
    const freshId = () => {
      fresh += 1;
      return `fresh-${fresh}`;
    };
    for (const size of SIZES) {
      const seedStarted = performance.now();
      await seeder.registerRange(seeded, size);
      console.log(
        `(seeded ${size.toLocaleString('en-US')} registrations, ${secondsText(performance.now() - seedStarted)} for the last ${(size - seeded).toLocaleString('en-US')})`,
      );
      seeded = size;
      await admin.resetSlowlog();
      const relay = await startRelayProcess(directory, `n${size}`, relayConfig(service.url, redis.url, prefix));
      relays.push(relay);
      try {
        const firstAnswerMs = await untilServed(realtime(relay, idOf(0)));
        const afterStart = await relay.report();
        // 1% of the websites, spread over all of them, each asked once.
        const share = Math.max(1, Math.floor(size / 100));
        const step = Math.floor(size / share);
        const statuses: number[] = [];
        for (let start = 0; start < share; start += 20) {
          const batch = Array.from({ length: Math.min(20, share - start) }, (_, offset) => idOf((start + offset) * step));
          statuses.push(...(await Promise.all(batch.map((id) => status(realtime(relay, id))))));
        }
        const afterServing = await relay.report();
        const registrationMs: Array<number | null> = [];
        const registrationCpuMs: number[] = [];
        for (let turn = 0; turn < REGISTRATIONS_MEASURED; turn += 1) {
          const id = freshId();
          const before = await relay.report();
          await seeder.register(id);
          registrationMs.push(await untilServed(realtime(relay, id)));
          registrationCpuMs.push(((await relay.report()).cpuMicros - before.cpuMicros) / 1000);
        }
        const [alone, cached] = (await measureInTurns([realtime(one, idOf(0)), realtime(relay, idOf(0))])) as [Run, Run];
        // One registration a second goes into the fleet meanwhile, as another instance's PUT writes it.
        const flowing = setInterval(() => {
          seeder.register(freshId()).catch(() => {});
        }, 1_000);
        let cachedFlowing: Run;
        let baseline: Run;
        try {
          [baseline, cachedFlowing] = (await measureInTurns([realtime(one, idOf(0)), realtime(relay, idOf(0))])) as [Run, Run];
        } finally {
          clearInterval(flowing);
        }
        results.push({
          size,
          listenedAfterMs: relay.listenedAfterMs,
          firstAnswerMs,
          afterStart,
          afterServing,
          servedShare: `${statuses.filter((code) => code === 200).length} of ${share} answered 200`,
          registrationMs,
          registrationCpuMs,
          cached: { ...cached, requestsPerSecond: cached.requestsPerSecond / alone.requestsPerSecond },
          cachedFlowing: { ...cachedFlowing, requestsPerSecond: cachedFlowing.requestsPerSecond / baseline.requestsPerSecond },
          slowest: await admin.slowest(prefix),
        });
      } finally {
        await relay.stop();
      }
    }
    printScale(results, oneFirstMs, oneReport);
  } finally {
    await Promise.all(relays.map((relay) => relay.stop()));
    await Promise.all([seeder.close(), oneSeeder.close(), admin.close()]);
    await Promise.all([redis.close(), service.close()]);
    await rm(directory, { recursive: true, force: true });
  }
}

function printScale(results: readonly SizeResult[], oneFirstMs: number | null, one: ProcessReport): void {
  const spread = (values: Array<number | null>, text: (value: number) => string) =>
    values.map((value) => (value === null ? 'never' : text(value))).join(', ');
  printTable(
    'Relay for many shops: one relay process per size on one Redis holding that many sealed registrations, against a stub service on loopback. ' +
      `Start → first answer is from the "listening" line to the first 200 for a registered website (1 registered: ${served(oneFirstMs)}). ` +
      `Memory after a full GC (1 registered: RSS ${megabytes(one.rss)}, heap ${megabytes(one.heapUsed)}). ` +
      'A registration written by another instance (through the store), then asked for on this one every 50 ms. ' +
      "Cached path: one hot website's requests/s against the relay with 1 registered, in turns in the same run",
    results.map((result) => ({
      registered: result.size.toLocaleString('en-US'),
      'spawn → listening': secondsText(result.listenedAfterMs),
      'start → first answer': served(result.firstAnswerMs),
      'RSS / heap after start': `${megabytes(result.afterStart.rss)} / ${megabytes(result.afterStart.heapUsed)}`,
      'heap per registered': `${Math.round((result.afterStart.heapUsed - one.heapUsed) / result.size)} B`,
      '1% served': result.servedShare,
      'RSS / heap after 1%': `${megabytes(result.afterServing.rss)} / ${megabytes(result.afterServing.heapUsed)}`,
      'registration → served there': spread(result.registrationMs, secondsText),
      'its CPU there': result.registrationCpuMs.map((ms) => `${Math.round(ms)} ms`).join(', '),
      'cached path vs 1': ratio(result.cached.requestsPerSecond, 1),
      'and 1 registration/s': `${ratio(result.cachedFlowing.requestsPerSecond, 1)} (p99 ${result.cachedFlowing.p99Ms} ms, ${result.cachedFlowing.failures} failed)`,
      'slowest relay command in SLOWLOG': result.slowest,
    })),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRelayScale();
