import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare, type MiniflareOptions } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorServer } from '../../../emulator/src/index.js';
import { eventually } from '../../../test/support/network.js';
import { relayEnvironment, startContractEmulator } from './contract-checks.js';
import { ensureRelayBuilt } from './runtime-support.js';
import { bundleWorker, captureOutput, templateWorker } from './workerd-support.js';

const SHOP_ID = 'shop-a';
/** Short, so the test sees several intervals; a budget of two, so it sees the budget spent. */
const FLEET_SETTINGS = { LIVE_VISITORS_INTERVAL: '1', LIVE_VISITORS_HOURLY_BUDGET: '2' };
const INTERVAL_MS = 1_000;
/** Each Worker on a loopback port of its own, so the test can ask a given isolate. */
const DIRECT_SOCKET = [{ host: '127.0.0.1', port: 0 }];

interface Answer {
  readonly status: number;
  readonly body: string;
}

async function get(url: string): Promise<Answer> {
  const response = await fetch(`${url}/api/v1/realtime?websiteId=${SHOP_ID}`);
  return { status: response.status, body: await response.text() };
}

/** Waits past the interval of an answer received now. */
const nextInterval = () => new Promise((resolve) => setTimeout(resolve, INTERVAL_MS + 150));

// Separate Workers in one workerd are separate isolates, each with its own module-level relay:
// what Cloudflare runs when many isolates serve one Worker. All bind the one Durable Object class.
describe('Cloudflare Workers: a fleet of isolates on one Durable Object (workerd)', () => {
  const names = ['relay-0', 'relay-1', 'relay-2'];
  const stdio = captureOutput();
  const persist = mkdtempSync(join(tmpdir(), 'relay-durable-objects-'));
  let emulator: EmulatorServer;
  let options: MiniflareOptions;
  let miniflare: Miniflare;
  let urls: string[];
  const served = () => emulator.emulator.stats().trackedRateLimitRequests;
  /** Every isolate at once, several browsers each. */
  const burst = () => Promise.all(urls.flatMap((url) => Array.from({ length: 4 }, () => get(url))));
  const directUrls = () => Promise.all(names.map(async (name) => (await miniflare.unsafeGetDirectURL(name)).origin));

  beforeAll(async () => {
    await ensureRelayBuilt();
    emulator = await startContractEmulator();
    const environment = relayEnvironment(emulator.url, FLEET_SETTINGS);
    const workers = await Promise.all(
      names.map(async (name, index) => ({
        name,
        unsafeDirectSockets: DIRECT_SOCKET,
        // The first Worker holds the class, as the relay's own script does on Cloudflare; the others bind to it.
        ...(await templateWorker(environment, index === 0 ? {} : { coordinatorScript: names[0] })),
      })),
    );
    // Persisted, so a restart of workerd keeps the coordinator's storage as Cloudflare keeps it past an eviction.
    options = { host: '127.0.0.1', port: 0, durableObjectsPersist: persist, handleRuntimeStdio: stdio.handleRuntimeStdio, workers };
    miniflare = new Miniflare(options);
    await miniflare.ready;
    urls = await directUrls();
  }, 150_000);

  afterAll(async () => {
    await miniflare?.dispose();
    await emulator?.close();
    rmSync(persist, { recursive: true, force: true });
  });

  it('asks upstream once per interval for every isolate together, within one hourly budget that a restart keeps', async () => {
    const first = await burst();
    expect(first.map((answer) => answer.status)).toEqual(first.map(() => 200));
    expect(new Set(first.map((answer) => answer.body)).size).toBe(1);
    expect(served()).toBe(1);

    await nextInterval();
    const second = await burst();
    expect(second.map((answer) => answer.status)).toEqual(second.map(() => 200));
    expect(new Set(second.map((answer) => answer.body)).size).toBe(1);
    expect(second[0]!.body).not.toBe(first[0]!.body);
    expect(served()).toBe(2);

    // Two requests spent the fleet's budget of two: the isolate that holds the claim finds it spent and
    // tells the others through the coordinator, so none of them waits on its claim or asks again.
    await nextInterval();
    for (const url of urls) expect(await get(url)).toEqual({ status: 200, body: second[0]!.body });
    expect(served()).toBe(2);
    // One line: had the others claimed in turn (and waited on the claim), each would have found the budget spent too.
    const spentLines = () => stdio.output().match(/hourly budget of 2 upstream requests spent/g)?.length ?? 0;
    await eventually(() => spentLines() === 1, undefined, 'the spent budget in the log of the isolate that found it');

    // A restart forgets every isolate's memory and the coordinator's; the budget, in its storage, stays spent.
    await miniflare.setOptions(options);
    urls = await directUrls();
    const afterRestart = await get(urls[1]!);
    expect(afterRestart.status).toBe(503);
    expect(JSON.parse(afterRestart.body)).toMatchObject({
      error: expect.stringContaining('hourly budget of 2 upstream requests is spent'),
    });
    expect(served()).toBe(2);
  });
});

describe('Cloudflare Workers: a Durable Object that throws (workerd)', () => {
  const stdio = captureOutput();
  let emulator: EmulatorServer;
  let miniflare: Miniflare;
  let relayUrl: string;
  let coordinatorUrl: string;
  const served = () => emulator.emulator.stats().trackedRateLimitRequests;

  beforeAll(async () => {
    await ensureRelayBuilt();
    emulator = await startContractEmulator();
    const relay = await templateWorker(relayEnvironment(emulator.url, FLEET_SETTINGS), {
      coordinatorScript: 'coordinator',
      coordinatorClass: 'BreakableCoordinator',
    });
    miniflare = new Miniflare({
      host: '127.0.0.1',
      port: 0,
      handleRuntimeStdio: stdio.handleRuntimeStdio,
      workers: [
        { name: 'relay', unsafeDirectSockets: DIRECT_SOCKET, ...relay },
        {
          name: 'coordinator',
          unsafeDirectSockets: DIRECT_SOCKET,
          modules: true,
          script: await bundleWorker(join(import.meta.dirname, 'breakable-coordinator.ts')),
          compatibilityDate: relay.compatibilityDate,
          durableObjects: { COORDINATOR: { className: 'BreakableCoordinator', useSQLite: true } },
        },
      ],
    });
    await miniflare.ready;
    relayUrl = (await miniflare.unsafeGetDirectURL('relay')).origin;
    coordinatorUrl = (await miniflare.unsafeGetDirectURL('coordinator')).origin;
  }, 150_000);

  afterAll(async () => {
    await miniflare?.dispose();
    await emulator?.close();
  });

  it("says why, and keeps answering from the isolate's own copy", async () => {
    const before = await get(relayUrl);
    expect(before.status).toBe(200);
    expect(served()).toBe(1);

    expect(await (await fetch(coordinatorUrl)).text()).toBe('broken');
    await nextInterval();
    const answers = await Promise.all(Array.from({ length: 5 }, () => get(relayUrl)));
    expect(answers).toEqual(answers.map(() => before));
    await eventually(
      () =>
        stdio
          .output()
          .includes(
            'the shared store failed (the Durable Object RelayCoordinator failed read: Error: the coordinator broke down on purpose)',
          ),
      5_000,
      'the store failure in the log',
    );
    // Without its store an instance does not ask alone (storeDownBudget 0): the fleet cannot overspend.
    expect(served()).toBe(1);
    expect(await get(relayUrl)).toEqual(before);
  });
});
