// The relay's throughput and latency on loopback, against a bare node:http server measured in the same run.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { startEmulatorServer } from '../emulator/src/index.js';
import { startRelayServer } from '../relay/src/node.js';
import { printTable, ratio } from './table.js';

const CONNECTIONS = 50;
const DURATION_SECONDS = 5;
const WARMUP_SECONDS = 1;
const WEBSITE = { id: 'bench-shop', token: 'bench-token' } as const;

interface Run {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
}

/** Bounded in time; the load runs on a worker thread so it does not share the servers' event loop. */
async function load(url: string, seconds: number): Promise<Run> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, workers: 1 });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

async function measure(url: string): Promise<Run> {
  await load(url, WARMUP_SECONDS);
  return load(url, DURATION_SECONDS);
}

/** The floor: what Node's own HTTP server does with the same body and no work at all. */
async function startBareServer(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1/realtime?websiteId=${WEBSITE.id}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function benchRelay(): Promise<void> {
  const emulator = await startEmulatorServer({ port: 0, config: { websites: [{ ...WEBSITE, plan: 'enterprise' }] } });
  let upstreamRequests = 0;
  const relay = await startRelayServer({
    port: 0,
    // The longest interval, so every measured request is answered from the cached answer.
    config: { upstream: emulator.url, websites: [WEBSITE], allowOrigins: [], interval: 3_600, maxStale: 3_600, hourlyBudget: 100 },
    fetch: (input, init) => {
      upstreamRequests += 1;
      return fetch(input, init);
    },
    log: () => undefined,
  });
  const relayUrl = `${relay.url}/api/v1/realtime?websiteId=${WEBSITE.id}`;
  const warm = await fetch(relayUrl);
  const body = await warm.text();
  const floorServer = await startBareServer(body);
  try {
    const floor = await measure(floorServer.url);
    const before = upstreamRequests;
    const relayed = await measure(relayUrl);
    const rows = [
      { server: 'bare node:http, constant JSON (floor)', run: floor },
      { server: 'relay (srvx), cached answer', run: relayed },
    ];
    printTable(
      `Relay on loopback, cached path (one warm answer; ${upstreamRequests - before} upstream requests during the run): ` +
        `autocannon, ${CONNECTIONS} connections, ${DURATION_SECONDS} s per server after ${WARMUP_SECONDS} s warm-up, ${body.length}-byte body`,
      rows.map(({ server, run }) => ({
        server,
        'requests/s': Math.round(run.requestsPerSecond).toLocaleString('en-US'),
        'vs floor': ratio(run.requestsPerSecond, floor.requestsPerSecond),
        p50: `${run.p50Ms} ms`,
        p99: `${run.p99Ms} ms`,
        'p99 vs floor': ratio(run.p99Ms, floor.p99Ms),
        failures: run.failures,
      })),
    );
  } finally {
    await Promise.all([floorServer.close(), relay.close(), emulator.close()]);
  }
}
