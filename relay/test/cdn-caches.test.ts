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
import { StallMeter } from './support/stall-meter.js';
import { startVarnish } from './support/varnish.js';

/**
 * Real caches in front of a real relay, on the real clock: what the relay's Cache-Control and Age
 * buy behind nginx and Varnish as Debian ships them, configured as docs/relay.md says. The relay
 * is counted at its door, the service at the emulator.
 *
 * interval 2 s, maxStale 6 s: `max-age=2, stale-while-revalidate=2, stale-if-error=4`.
 *
 * A busy machine answers fewer requests and stalls this process's clock readings: the load phase
 * runs until it has its answers (not for a fixed time), and every timing slack is what this
 * process measured of its own stalls, so the verdict does not depend on the machine's speed.
 */
const INTERVAL_S = 2;
const MAX_STALE_S = 6;
const STALE_WHILE_REVALIDATE_S = 2;
const STALE_IF_ERROR_S = 4;
const CLIENTS = 50;
const POLL_EVERY_MS = 100;
const LOAD_MS = 3 * INTERVAL_S * 1000;
/** Answers wanted from the load phase: ten for each client, however long a busy machine takes. */
const LOAD_ANSWERS = CLIENTS * 10;
/** Timer slack for "at least an interval apart" on an idle machine; the stalls measured are added. */
const SLACK_MS = 100;
/** Only on failure: how long a phase may go on before its assertions say what it saw. */
const GIVE_UP_MS = 60_000;

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
  /** Whether the cache says it passed this request on to the relay, having no copy it could serve. */
  passedOn(sample: Sample): boolean;
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
    passedOn: (sample) => sample.cacheStatus === 'EXPIRED' || sample.cacheStatus === 'MISS',
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
    // Varnish does not say: nothing is excused.
    passedOn: () => false,
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
  /** How long the relay took over each realtime answer, in ms. */
  const relayAnswerMs: number[] = [];
  /** Each realtime answer's body, in the order the relay sent them. */
  const relayBodies: string[] = [];
  /** The `Age` values the relay sent with each body. */
  const relayAges = new Map<string, Set<number>>();

  beforeAll(async () => {
    emulator = await startEmulatorServer({ port: 0, config: EMULATOR_CONFIG, onError: () => undefined });
    const handler = createRelay({
      config: defaultRelayConfig(emulator.url, { interval: INTERVAL_S, maxStale: MAX_STALE_S }),
      log: () => undefined,
    });
    // Counted at the relay's door: the cache's own health checks (other paths) do not count.
    relay = await serveOnNode(
      async (request) => {
        if (new URL(request.url).pathname !== REALTIME_PATH) return handler(request);
        const arrivedAt = performance.now();
        relayArrivals.push(arrivedAt);
        const response = await handler(request);
        relayAnswerMs.push(performance.now() - arrivedAt);
        const body = await response.clone().text();
        relayBodies.push(body);
        relayAges.set(body, (relayAges.get(body) ?? new Set()).add(Number(response.headers.get('age'))));
        return response;
      },
      { port: 0, graceMs: 0 },
    );
    server = await cache.start(relay.url);
  }, GIVE_UP_MS);

  afterAll(async () => {
    await Promise.allSettled([server?.stop(), relay?.close(), emulator?.close()]);
  });

  it(
    'asks the relay at most once per interval while 50 clients poll it for three intervals',
    async () => {
      const url = realtimeUrl(server.url, SHOP.id);
      const stalls = new StallMeter();
      const startedAt = performance.now();
      const samples = await poll(url, {
        clients: CLIENTS,
        isDone: (sofar, elapsedMs) => elapsedMs >= LOAD_MS && sofar.length >= LOAD_ANSWERS,
      });
      const elapsedMs = performance.now() - startedAt;
      stalls.stop();
      /** The longest this process did not run: how late a clock reading here may be. */
      const stallMs = stalls.longestMs;

      expect(samples.length).toBeGreaterThanOrEqual(LOAD_ANSWERS);
      const failures = samples.filter(
        (sample) => sample.status !== 200 || typeof parseReport(JSON.parse(sample.body), SHOP.id) === 'string',
      );
      expect(failures).toEqual([]);
      // A copy past max-age goes out only while its background refresh is under way: a moment, at
      // most the relay's slowest answer (whole seconds in Age, so one more).
      const refreshS = Math.ceil((Math.max(0, ...relayAnswerMs) + stallMs) / 1000);
      const ages = samples.map((sample) => sample.age);
      expect(
        ages.every((age) => age !== null && age <= INTERVAL_S + 1 + refreshS),
        `ages ${[...new Set(ages)]}, refresh up to ${refreshS} s`,
      ).toBe(true);
      // Varnish counts its own time on top of the relay's; nginx repeats the relay's as it was.
      for (const sample of samples) {
        const sent = [...(relayAges.get(sample.body) ?? [])];
        if (cache.addsItsOwnAge) expect(sample.age).toBeGreaterThanOrEqual(Math.min(...sent));
        else expect(sent, `the Age values the relay sent with this copy`).toContain(sample.age);
      }
      if (cache.addsItsOwnAge) expect(Math.max(...(ages as number[]))).toBeGreaterThan(0);

      // One fill at the start, then one refresh per interval at most: never two within an interval.
      // An arrival is read late by at most the longest stall, so two readings may come that much closer.
      // A refresh that this process could not answer within stale-while-revalidate (a stall as long
      // as the window) leaves the cache nothing it may serve: what it then passes on, and says it
      // did, is the machine's doing, not the relay's, and is all that is excused.
      const arrivals = relayArrivals.filter((atMs) => atMs >= startedAt);
      const late = stallMs + Math.max(0, ...relayAnswerMs) >= STALE_WHILE_REVALIDATE_S * 1000;
      const excused = late ? samples.filter((sample) => cache.passedOn(sample)).length : 0;
      expect(arrivals.length).toBeGreaterThanOrEqual(2);
      expect(
        arrivals.length,
        `arrivals at ${arrivals.map((atMs) => Math.round(atMs - startedAt))} ms, answered in ${relayAnswerMs.map(Math.round)} ms`,
      ).toBeLessThanOrEqual(Math.floor(elapsedMs / (INTERVAL_S * 1000)) + 1 + excused);
      if (!late) {
        for (let i = 1; i < arrivals.length; i++) {
          expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThanOrEqual(INTERVAL_S * 1000 - SLACK_MS - stallMs);
        }
      }
      // The relay asked the service once for each of them, never more.
      expect(emulator.emulator.stats().trackedRateLimitRequests).toBeLessThanOrEqual(arrivals.length);
      console.info(
        `${cache.name}: ${samples.length} answers to ${CLIENTS} clients in ${Math.round(elapsedMs)} ms; ` +
          `${arrivals.length} requests reached the relay (${excused} excused), ${emulator.emulator.stats().trackedRateLimitRequests} the service; ` +
          `longest stall ${Math.round(stallMs)} ms`,
      );
    },
    GIVE_UP_MS * 2,
  );

  it(
    'serves its stale copy while the relay is down, for the stale window, then stops',
    async () => {
      const url = realtimeUrl(server.url, SHOP.id);
      expect((await ask(url, performance.now())).status).toBe(200);
      await relay.close();

      // The copy is fresh for at most an interval more, stale for the window after that (nginx
      // counts in whole seconds: one more), and then the cache must say it has nothing.
      // Polled until the cache has given up for half a second (or, failing, for long past the window).
      const windowEndMs = (INTERVAL_S + cache.staleWindowS + 1) * 1000;
      const samples = await poll(url, {
        clients: 5,
        isDone: (sofar, elapsedMs) => {
          const firstError = sofar.find((sample) => sample.status !== 200);
          return (firstError !== undefined && elapsedMs > firstError.doneMs + 500) || elapsedMs > windowEndMs + GIVE_UP_MS;
        },
      });
      const served = samples.filter((sample) => sample.status === 200);
      const stale = served.filter((sample) => cache.isStale(sample));
      const errors = samples.filter((sample) => sample.status !== 200);

      expect(stale.length, 'stale answers while the relay is down').toBeGreaterThan(0);
      // The last copy the relay sent, or the one before: a refresh the cache had under way when
      // the relay went down may land or be dropped with the connection (a busy machine makes both
      // likely), never anything else.
      expect(new Set(served.map((sample) => sample.body)).size, 'no copy but the last one or two the relay sent').toBeLessThanOrEqual(2);
      for (const sample of served) expect(relayBodies.slice(-2)).toContain(sample.body);
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
    },
    GIVE_UP_MS * 2,
  );
});

interface PollOptions {
  readonly clients: number;
  /** Whether the phase has what it needs, given the answers so far and the time since it began. */
  isDone(samples: readonly Sample[], elapsedMs: number): boolean;
}

/** `clients` loops, each asking every POLL_EVERY_MS until the phase is done. */
async function poll(url: string, options: PollOptions): Promise<Sample[]> {
  const startedAt = performance.now();
  const samples: Sample[] = [];
  const client = async () => {
    do {
      const sentAt = performance.now();
      samples.push(await ask(url, startedAt));
      const wait = sentAt + POLL_EVERY_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    } while (!options.isDone(samples, performance.now() - startedAt));
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  return samples.sort((a, b) => a.atMs - b.atMs);
}

async function ask(url: string, startedAt: number): Promise<Sample> {
  const atMs = performance.now() - startedAt;
  try {
    // No time limit of its own: a busy machine answers late, and the test's own limit catches a hang.
    const response = await fetch(url);
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
