// The relay's throughput and latency on loopback, against a bare node:http server measured in the same run.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEmulatorServer } from '../emulator/src/index.js';
import { startRelayServer } from '../relay/src/node.js';
import { startRedisServer } from '../relay/test/support/redis-server.js';
import { CONNECTIONS, DURATION_SECONDS, measureInTurns, ROUNDS, type Run } from './load-in-turns.js';
import { printTable, ratio } from './table.js';

const WEBSITE = { id: 'bench-shop', token: 'bench-token' } as const;

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

async function startRelay(upstream: string, options: { interval: number; store?: string }, count: () => void) {
  const { interval, store = 'memory' } = options;
  return startRelayServer({
    port: 0,
    config: { upstream, websites: [WEBSITE], interval, maxStale: 3_600, hourlyBudget: 100_000, store },
    fetch: (input, init) => {
      count();
      return fetch(input, init);
    },
    log: () => undefined,
  });
}

export async function benchRelay(): Promise<void> {
  const [emulator, redis] = await Promise.all([
    startEmulatorServer({ port: 0, config: { websites: [{ ...WEBSITE, plan: 'enterprise' }] } }),
    startRedisServer(),
  ]);
  let upstreamRequests = 0;
  const count = () => {
    upstreamRequests += 1;
  };
  // The longest interval: every measured request is answered from the cached answer.
  const cached = await startRelay(emulator.url, { interval: 3_600 }, count);
  // One second: the answer is due every second, so the runs include the refresh path and its store round trips.
  const refreshingMemory = await startRelay(emulator.url, { interval: 1 }, count);
  const refreshingRedis = await startRelay(emulator.url, { interval: 1, store: redis.url }, count);
  const query = `/api/v1/realtime?websiteId=${WEBSITE.id}`;
  const warm = await fetch(`${cached.url}${query}`);
  const body = await warm.text();
  const floorServer = await startBareServer(body);
  try {
    const before = upstreamRequests;
    const [floor, relayed] = (await measureInTurns([floorServer.url, `${cached.url}${query}`])) as [Run, Run];
    const cachedUpstream = upstreamRequests - before;
    const [memory, shared] = (await measureInTurns([`${refreshingMemory.url}${query}`, `${refreshingRedis.url}${query}`])) as [Run, Run];
    const rows = [
      { server: 'bare node:http, constant JSON (floor)', run: floor, anchor: floor },
      { server: `relay, cached answer (${cachedUpstream} upstream requests in the run)`, run: relayed, anchor: floor },
      { server: 'relay, memory store, interval 1 s', run: memory, anchor: floor },
      { server: 'relay, Redis store, interval 1 s', run: shared, anchor: memory },
    ];
    printTable(
      `Relay on loopback: autocannon, ${CONNECTIONS} connections, the median of ${ROUNDS} runs of ${DURATION_SECONDS} s per server taken in turns, ` +
        `${body.length}-byte body. The Redis row's ratios are against the memory store at the same interval: what the shared store adds`,
      rows.map(({ server, run, anchor }) => ({
        server,
        'requests/s': Math.round(run.requestsPerSecond).toLocaleString('en-US'),
        ratio: ratio(run.requestsPerSecond, anchor.requestsPerSecond),
        p50: `${run.p50Ms} ms`,
        p99: `${run.p99Ms} ms`,
        'p50 added': `${run.p50Ms - anchor.p50Ms} ms`,
        'p99 added': `${run.p99Ms - anchor.p99Ms} ms`,
        failures: run.failures,
      })),
    );
  } finally {
    await Promise.all([floorServer.close(), cached.close(), refreshingMemory.close(), refreshingRedis.close()]);
    await Promise.all([emulator.close(), redis.close()]);
  }
}
