// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorServer, startEmulatorServer } from '../../emulator/src/index.js';
import { type NodeServer, serveOnNode } from '../../server-kit/serve.js';
import { parseReport } from '../../src/contract/report.js';
import { REALTIME_PATH, realtimeUrl } from '../../src/contract/request.js';
import { createRelay } from '../src/relay.js';
import type { CacheServer } from './support/cache-process.js';
import { startNginx } from './support/nginx.js';
import { defaultRelayConfig, EMULATOR_CONFIG, SHOP } from './support/relay-harness.js';
import { startVarnish } from './support/varnish.js';

/**
 * Real caches in front of a real relay, on the real clock: what the relay's Cache-Control and Age
 * buy behind nginx and Varnish as Debian ships them, configured as docs/relay.md says. The relay
 * is counted at its door, the service at the emulator.
 *
 * interval 2 s, maxStale 6 s: `max-age=2, stale-while-revalidate=2, stale-if-error=4`.
 */
const INTERVAL_S = 2;
const MAX_STALE_S = 6;
const STALE_WHILE_REVALIDATE_S = 2;
const STALE_IF_ERROR_S = 4;
const CLIENTS = 50;
const POLL_EVERY_MS = 100;
const LOAD_MS = 3 * INTERVAL_S * 1000;
/** Timer and scheduling slack for "at least an interval apart". */
const SLACK_MS = 100;

interface CacheUnderTest {
  readonly name: string;
  start(relayUrl: string): Promise<CacheServer>;
  /** How long past expiry the cache serves its copy once the relay is gone, in seconds. */
  readonly staleWindowS: number;
  /** What the cache answers when it has nothing left to serve. */
  readonly errorStatus: number;
  /** Whether this answer is the cache's stale copy (past max-age), not a fresh one. */
  isStale(sample: Sample): boolean;
  /** Whether its `Age` adds the time the answer spent in the cache to the relay's. */
  readonly addsItsOwnAge: boolean;
}

const CACHES: CacheUnderTest[] = [
  {
    // nginx covers failures to connect and time-outs with stale-if-error (not 5xx answers, which
    // the relay only sends past maxStale). It passes the relay's Age on as it was when fetched.
    name: 'nginx',
    start: startNginx,
    staleWindowS: STALE_IF_ERROR_S,
    errorStatus: 502,
    isStale: (sample) => sample.cacheStatus === 'STALE',
    addsItsOwnAge: false,
  },
  {
    // Varnish knows no stale-if-error: its grace, taken from stale-while-revalidate, is the window.
    // It adds its own time to the relay's Age.
    name: 'Varnish',
    start: startVarnish,
    staleWindowS: STALE_WHILE_REVALIDATE_S,
    errorStatus: 503,
    isStale: (sample) => sample.age !== null && sample.age > INTERVAL_S,
    addsItsOwnAge: true,
  },
];

interface Sample {
  /** When it was sent, in milliseconds since the phase began. */
  readonly atMs: number;
  /** When its answer (or failure) was in. */
  readonly doneMs: number;
  /** 0 when the request itself failed. */
  readonly status: number;
  readonly age: number | null;
  readonly cacheStatus: string | null;
  readonly body: string;
}

describe.each(CACHES)('behind $name', (cache) => {
  let emulator: EmulatorServer;
  let relay: NodeServer;
  let server: CacheServer;
  /** When each realtime request reached the relay, in ms on the test's clock. */
  const relayArrivals: number[] = [];

  beforeAll(async () => {
    emulator = await startEmulatorServer({ port: 0, config: EMULATOR_CONFIG, onError: () => undefined });
    const handler = createRelay({
      config: defaultRelayConfig(emulator.url, { interval: INTERVAL_S, maxStale: MAX_STALE_S }),
      log: () => undefined,
    });
    // Counted at the relay's door: the cache's own health checks (other paths) do not count.
    relay = await serveOnNode(
      (request) => {
        if (new URL(request.url).pathname === REALTIME_PATH) relayArrivals.push(performance.now());
        return handler(request);
      },
      { port: 0, graceMs: 0 },
    );
    server = await cache.start(relay.url);
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled([server?.stop(), relay?.close(), emulator?.close()]);
  });

  it('asks the relay at most once per interval while 50 clients poll it for three intervals', async () => {
    const url = realtimeUrl(server.url, SHOP.id);
    const startedAt = performance.now();
    const samples = await poll(url, { clients: CLIENTS, durationMs: LOAD_MS });
    const elapsedMs = performance.now() - startedAt;

    expect(samples.length).toBeGreaterThan(CLIENTS * 10);
    const failures = samples.filter((sample) => sample.status !== 200 || typeof parseReport(JSON.parse(sample.body), SHOP.id) === 'string');
    expect(failures).toEqual([]);
    // A copy past max-age goes out only while its background refresh is under way: a moment.
    const ages = samples.map((sample) => sample.age);
    expect(
      ages.every((age) => age !== null && age <= INTERVAL_S + 1),
      `ages ${[...new Set(ages)]}`,
    ).toBe(true);
    // Varnish counts its own time on top of the relay's; nginx repeats the relay's, here always
    // 0 as every refresh of nginx is what makes the relay ask the service again.
    const oldest = Math.max(...(ages as number[]));
    if (cache.addsItsOwnAge) expect(oldest).toBeGreaterThan(0);
    else expect(oldest).toBe(0);

    // One fill at the start, then one refresh per interval at most: never two within an interval.
    const arrivals = relayArrivals.filter((atMs) => atMs >= startedAt);
    expect(arrivals.length).toBeGreaterThanOrEqual(2);
    expect(arrivals.length).toBeLessThanOrEqual(Math.floor(elapsedMs / (INTERVAL_S * 1000)) + 1);
    for (let i = 1; i < arrivals.length; i++) {
      expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThanOrEqual(INTERVAL_S * 1000 - SLACK_MS);
    }
    // The relay asked the service once for each of them, never more.
    expect(emulator.emulator.stats().trackedRateLimitRequests).toBeLessThanOrEqual(arrivals.length);
    console.info(
      `${cache.name}: ${samples.length} answers to ${CLIENTS} clients in ${Math.round(elapsedMs)} ms; ` +
        `${arrivals.length} requests reached the relay, ${emulator.emulator.stats().trackedRateLimitRequests} the service`,
    );
  }, 30_000);

  it('serves its stale copy while the relay is down, for the stale window, then stops', async () => {
    const url = realtimeUrl(server.url, SHOP.id);
    expect((await ask(url, performance.now())).status).toBe(200);
    await relay.close();

    // The copy is fresh for at most an interval more, stale for the window after that (nginx
    // counts in whole seconds: one more), and then the cache must say it has nothing.
    const windowEndMs = (INTERVAL_S + cache.staleWindowS + 1) * 1000;
    const samples = await poll(url, { clients: 5, durationMs: windowEndMs + 2_000, stopAfterErrorMs: 500 });
    const served = samples.filter((sample) => sample.status === 200);
    const stale = served.filter((sample) => cache.isStale(sample));
    const errors = samples.filter((sample) => sample.status !== 200);

    expect(stale.length, 'stale answers while the relay is down').toBeGreaterThan(0);
    expect(new Set(served.map((sample) => sample.body)).size, 'one copy, the last the relay sent').toBe(1);
    for (const sample of served) {
      expect(sample.atMs).toBeLessThanOrEqual(windowEndMs);
      if (cache.addsItsOwnAge) expect(sample.age).toBeLessThanOrEqual(INTERVAL_S + cache.staleWindowS);
    }
    expect(errors.length, 'the cache gives up once the window is over').toBeGreaterThan(0);
    expect(errors.every((sample) => sample.status === cache.errorStatus)).toBe(true);
    // Once the window has closed it stays closed: nothing sent after the first error got the copy.
    const lastServedMs = Math.max(...served.map((sample) => sample.atMs));
    const firstErrorMs = Math.min(...errors.map((sample) => sample.doneMs));
    expect(lastServedMs).toBeLessThan(firstErrorMs);
    console.info(
      `${cache.name}, relay down: ${served.length} answers served (${stale.length} marked stale) ` +
        `until ${Math.round(lastServedMs)} ms, then ${cache.errorStatus} from ${Math.round(firstErrorMs)} ms`,
    );
  }, 30_000);
});

interface PollOptions {
  readonly clients: number;
  readonly durationMs: number;
  /** Stop this long after the first answer that is not a 200. */
  readonly stopAfterErrorMs?: number;
}

/** `clients` loops, each asking every POLL_EVERY_MS until the time is up. */
async function poll(url: string, options: PollOptions): Promise<Sample[]> {
  const startedAt = performance.now();
  let deadline = startedAt + options.durationMs;
  const samples: Sample[] = [];
  const client = async () => {
    do {
      const sentAt = performance.now();
      const sample = await ask(url, startedAt);
      samples.push(sample);
      if (sample.status !== 200 && options.stopAfterErrorMs !== undefined) {
        deadline = Math.min(deadline, performance.now() + options.stopAfterErrorMs);
      }
      const wait = sentAt + POLL_EVERY_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    } while (performance.now() < deadline);
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  return samples.sort((a, b) => a.atMs - b.atMs);
}

async function ask(url: string, startedAt: number): Promise<Sample> {
  const atMs = performance.now() - startedAt;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    const body = await response.text();
    const age = response.headers.get('age');
    const cacheStatus = response.headers.get('x-cache-status');
    return {
      atMs,
      doneMs: performance.now() - startedAt,
      status: response.status,
      age: age === null ? null : Number(age),
      cacheStatus,
      body,
    };
  } catch {
    return { atMs, doneMs: performance.now() - startedAt, status: 0, age: null, cacheStatus: null, body: '' };
  }
}
