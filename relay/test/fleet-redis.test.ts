// @vitest-environment node
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CountingEmulator, startCountingEmulator } from '../../test/browser/support/counting-emulator.js';
import { eventually } from '../../test/support/network.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { EMULATOR_CONFIG, leakedTokens, SHOP } from './support/relay-harness.js';
import {
  ask,
  firstShowing,
  keepAsking,
  type RelayInstance,
  type Seen,
  sleep,
  slowestAnswerMs,
  startInstance as startRelayInstance,
  stopInstance,
} from './support/relay-processes.js';

/**
 * The fleet's invariants with real processes: three relays (`tsx relay/src/cli.ts`) on their own
 * ports, one Redis, one emulator counting what reaches the service, browsers over real HTTP.
 */

const INTERVAL_MS = 1_000;
const MAX_STALE_MS = 2_000;
/** What a loaded two-core machine adds to a bound made of the relay's own times. */
const SLACK_MS = 1_000;
const PASSWORD = 'redis-SECRET-pw-91c4';

let redis: RedisServer;
let emulator: CountingEmulator;
let inspector: ReturnType<typeof createClient>;
let folder: string;
const everyInstance: RelayInstance[] = [];
const MAIN_PREFIX = 'fleet-main:';
/** Started together (starting takes seconds), used one after the other. */
let fleet: RelayInstance[];
let budgetFleet: RelayInstance[];

beforeAll(async () => {
  [redis, emulator, folder] = await Promise.all([
    startRedisServer({ password: PASSWORD }),
    startCountingEmulator({ config: EMULATOR_CONFIG, onError: () => undefined }),
    mkdtemp(join(tmpdir(), 'relay-fleet-')),
  ]);
  inspector = createClient({ url: storeUrl() });
  inspector.on('error', () => {});
  await inspector.connect();
  emulator.setVisitors(SHOP.id, 5);
  [fleet, budgetFleet] = await Promise.all([
    startFleet(await writeConfig('main', { storePrefix: MAIN_PREFIX })),
    startFleet(await writeConfig('budget', { storePrefix: 'fleet-budget:', hourlyBudget: 3 })),
  ]);
});

afterAll(async () => {
  await Promise.all(everyInstance.map(stopInstance));
  inspector?.destroy();
  await Promise.all([redis?.close(), emulator?.close()]);
  if (folder) await rm(folder, { recursive: true, force: true });
});

const storeUrl = () => `redis://:${PASSWORD}@127.0.0.1:${redis.port}/0`;

async function writeConfig(name: string, overrides: Record<string, unknown>): Promise<string> {
  const path = join(folder, `${name}.json`);
  const config = {
    upstream: emulator.url,
    websites: [SHOP],
    interval: INTERVAL_MS / 1000,
    maxStale: MAX_STALE_MS / 1000,
    hourlyBudget: 10_000,
    store: storeUrl(),
    storeDownBudget: 0,
    ...overrides,
  };
  await writeFile(path, JSON.stringify(config));
  return path;
}

/** Every instance started is stopped after all. */
async function startInstance(configPath: string): Promise<RelayInstance> {
  const instance = await startRelayInstance(configPath);
  everyInstance.push(instance);
  return instance;
}

async function startFleet(configPath: string, size = 3): Promise<RelayInstance[]> {
  return Promise.all(Array.from({ length: size }, () => startInstance(configPath)));
}

/** Upstream requests sent while `during` runs, counted at the service. */
async function upstreamRequestsDuring(during: () => Promise<unknown>): Promise<number> {
  const before = emulator.realtimeRequests;
  await during();
  return emulator.realtimeRequests - before;
}

describe('a fleet of three relay processes sharing one Redis', () => {
  const prefix = MAIN_PREFIX;

  it('answers 1,000 concurrent browsers spread over the instances from exactly one upstream request', async () => {
    // The service takes a while (under the relay's 5 s upstream timeout), so the whole burst
    // arrives while the one request is out: sending 1,000 takes this process a second or two.
    const slowMs = 3_000;
    emulator.emulator.setFault({ kind: 'slow', delaySeconds: slowMs / 1000 });
    let answers: Seen[] = [];
    const sent = await upstreamRequestsDuring(async () => {
      answers = await Promise.all(Array.from({ length: 1_000 }, (_, index) => ask(fleet, index % fleet.length)));
    });
    emulator.emulator.clearFault();
    // A busy machine may take longer to send the burst than the service takes to answer plus an
    // interval: browsers asking after that rightly cause the next interval's request. Measured
    // from the answers (sent = done - took); on an idle machine the burst fits, and this is 1.
    const sentAtMs = answers.map((answer) => answer.atMs - answer.tookMs);
    const burstMs = Math.max(...sentAtMs) - Math.min(...sentAtMs);
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent, `burst sent over ${burstMs} ms`).toBeLessThanOrEqual(1 + Math.max(0, Math.ceil((burstMs - slowMs) / INTERVAL_MS)));
    expect(answers.filter((answer) => answer.status === 200 && answer.visitors === 5)).toHaveLength(1_000);
    expect(new Set(answers.map((answer) => answer.instance))).toEqual(new Set([0, 1, 2]));
  });

  it('sends one upstream request per interval while browsers keep asking, and every instance shows a change within one interval', async () => {
    await keepAsking(fleet, 1_500);
    const intervals = 6;
    const seen: Seen[] = [];
    let changedAtMs = 0;
    const startedAtMs = Date.now();
    const sent = await upstreamRequestsDuring(() =>
      Promise.all([
        keepAsking(fleet, intervals * INTERVAL_MS, seen),
        sleep(2_500).then(() => {
          emulator.setVisitors(SHOP.id, 42);
          changedAtMs = Date.now();
        }),
      ]),
    );
    // An interval boundary may fall on either side of the window: one more or one fewer. A relay
    // asks upstream when a browser asks it past the interval, so the next request may come as
    // late as the slowest answer measured after it (nothing on an idle machine).
    const elapsedMs = Date.now() - startedAtMs;
    expect(sent).toBeGreaterThanOrEqual(Math.min(intervals, Math.round(elapsedMs / (INTERVAL_MS + slowestAnswerMs(seen)))) - 1);
    expect(sent).toBeLessThanOrEqual(Math.floor(elapsedMs / INTERVAL_MS) + 1);
    expect(seen.every((each) => each.status === 200)).toBe(true);
    for (const shown of firstShowing(seen, fleet.length, 42, changedAtMs)) {
      expect(shown).toEqual({ instance: shown.instance, delayMs: expect.any(Number), wentBack: false });
      expect(shown.delayMs, `instance ${shown.instance}`).toBeLessThanOrEqual(INTERVAL_MS + SLACK_MS + slowestAnswerMs(seen));
    }
  });

  it('does not stall past the claim when the instance holding it is killed (SIGKILL) mid-request', async () => {
    await sleep(INTERVAL_MS + 200);
    emulator.emulator.setFault({ kind: 'slow', delaySeconds: 4 });
    const victim = fleet[0]!;
    void ask([victim], 0);
    await eventually(() => emulator.heldRequests === 1, undefined, 'the victim asks upstream');
    const claimKey = `${prefix}claim:{${SHOP.id}}`;
    const [holder, claimLeftMs] = await Promise.all([inspector.get(claimKey), inspector.pTTL(claimKey)]);
    expect(holder).toEqual(expect.any(String));
    expect(claimLeftMs).toBeGreaterThan(0);

    victim.process.child.kill('SIGKILL');
    await victim.process.exited;
    const killedAtMs = Date.now();
    // Fast again, with a new count: whoever asks next gets it.
    emulator.setVisitors(SHOP.id, 77);
    const survivors = fleet.slice(1);
    const seen: Seen[] = [];
    const boundMs = claimLeftMs + INTERVAL_MS + SLACK_MS;
    await Promise.race([
      keepAsking(survivors, boundMs + 2_000, seen, 100),
      eventually(
        () => firstShowing(seen, survivors.length, 77, killedAtMs).every((shown) => shown.delayMs < Infinity),
        boundMs + 2_000,
        'fresh',
      ),
    ]).catch(() => undefined);
    for (const shown of firstShowing(seen, survivors.length, 77, killedAtMs)) {
      expect(shown.delayMs, `survivor ${shown.instance}`).toBeLessThanOrEqual(boundMs + slowestAnswerMs(seen));
    }
    // Answers meanwhile: the last good one (younger than maxStale) or an honest error, never a hang.
    expect(seen.every((each) => each.status === 200 || (each.status >= 500 && typeof each.error === 'string'))).toBe(true);
    fleet = [...survivors, await startInstance(await writeConfig('main', { storePrefix: prefix }))];
  });

  it('keeps answering while Redis is down, asks nothing upstream, and coordinates again once it is back', async () => {
    emulator.setVisitors(SHOP.id, 9);
    await keepAsking(fleet, 1_500);

    await redis.stop();
    // An upstream request granted just before the stop may still be landing.
    await sleep(200);
    const down: Seen[] = [];
    const sentWhileDown = await upstreamRequestsDuring(() => keepAsking(fleet, MAX_STALE_MS + 1_500, down, 100));
    expect(sentWhileDown).toBe(0);
    expect(down.filter((each) => each.status === 0)).toEqual([]);
    for (const each of down) {
      if (each.status === 200) {
        expect(each.visitors).toBe(9);
        expect(each.age).toBeLessThan(MAX_STALE_MS / 1000);
      } else {
        expect({ status: each.status, error: each.error }).toEqual({ status: 503, error: expect.stringMatching(/shared store/) });
      }
    }
    // Past maxStale every instance says it cannot answer, in JSON.
    for (let index = 0; index < fleet.length; index += 1) {
      expect(down.filter((each) => each.instance === index).at(-1)!.status, `instance ${index}`).toBe(503);
    }

    await redis.start();
    emulator.setVisitors(SHOP.id, 10);
    const back: Seen[] = [];
    const backAtMs = Date.now();
    await Promise.race([
      keepAsking(fleet, 6_000, back),
      eventually(() => firstShowing(back, fleet.length, 10, backAtMs).every((shown) => shown.delayMs < Infinity), 6_000, 'back'),
    ]);
    const intervals = 6;
    const sent = await upstreamRequestsDuring(() => keepAsking(fleet, intervals * INTERVAL_MS));
    expect(sent).toBeGreaterThanOrEqual(intervals - 1);
    expect(sent).toBeLessThanOrEqual(intervals + 1);
  });

  it('never lets a token into Redis, nor the Redis password or a token into any output', async () => {
    await keepAsking(fleet, 300);
    const keys = await inspector.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    const values = await Promise.all(
      keys.map(async (key) => {
        const type = await inspector.type(key);
        return type === 'string' ? await inspector.get(key) : JSON.stringify(await inspector.zRangeWithScores(key, 0, -1));
      }),
    );
    expect(leakedTokens(JSON.stringify([keys, values]), [SHOP.token])).toEqual([]);
    for (const key of keys) expect({ key, expires: (await inspector.pTTL(key)) > 0 }).toEqual({ key, expires: true });
    const output = everyInstance.map((instance) => `${instance.process.out()}\n${instance.process.err()}`).join('\n');
    expect(output).toContain('store: Redis at redis://127.0.0.1:');
    expect(output).not.toContain(PASSWORD);
    expect(leakedTokens(output, [SHOP.token])).toEqual([]);
  });
});

describe('a fleet with hourlyBudget 3', () => {
  it('sends exactly 3 upstream requests in all, not 3 per instance', async () => {
    emulator.setVisitors(SHOP.id, 3);
    const fleet = budgetFleet;
    try {
      const seen: Seen[] = [];
      const sent = await upstreamRequestsDuring(() => keepAsking(fleet, 6 * INTERVAL_MS + MAX_STALE_MS, seen));
      expect(sent).toBe(3);
      // Then the last answer is served until maxStale, and after it an honest error.
      for (let index = 0; index < fleet.length; index += 1) {
        const last = seen.filter((each) => each.instance === index).at(-1)!;
        expect({ status: last.status, error: last.error }).toEqual({ status: 503, error: expect.stringMatching(/hourly budget of 3/) });
      }
      expect(seen.every((each) => each.status === 200 || each.status === 503)).toBe(true);
    } finally {
      await Promise.all(fleet.map(stopInstance));
    }
  });
});
