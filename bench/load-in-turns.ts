// HTTP load for the relay's benches: autocannon against a few servers, in turns, the median kept.

import autocannon from 'autocannon';

export const CONNECTIONS = 50;
export const DURATION_SECONDS = 3;
const WARMUP_SECONDS = 1;
/**
 * Every server is measured this many times, in turns, and the median run is kept: on a shared
 * two-core machine one run can meet another process's burst, and turns spread that over all.
 */
export const ROUNDS = 3;

export interface Run {
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

/** Each URL warmed up once, then measured `ROUNDS` times in turns; the run with the median throughput of each. */
export async function measureInTurns(urls: readonly string[]): Promise<Run[]> {
  for (const url of urls) await load(url, WARMUP_SECONDS);
  const runs: Run[][] = urls.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [index, url] of urls.entries()) runs[index]!.push(await load(url, DURATION_SECONDS));
  }
  return runs.map((ofUrl) => [...ofUrl].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(ROUNDS / 2)]!);
}
