// Upstream requests a relay fleet sends in one simulated hour, per store, against the plans' hourly limits.

import { createRelay, type RelayHandler } from '../relay/src/relay.js';
import { MemoryStore } from '../relay/src/store/memory-store.js';
import { RedisStore } from '../relay/src/store/redis-store.js';
import type { RelayStore } from '../relay/src/store/relay-store.js';
import { startRedisServer } from '../relay/test/support/redis-server.js';
import { printTable, ratio } from './table.js';

const HOUR_MS = 60 * 60_000;
const INTERVAL_SECONDS = 60;
/** Every instance is asked this often (simulated), by many browsers: far more often than the interval. */
const STEP_MS = 5_000;
const FLEETS = [1, 3, 10];
const PLANS = [
  { plan: 'Free', limit: 100 },
  { plan: 'Pro', limit: 1_000 },
  { plan: 'Enterprise', limit: 10_000 },
];
const WEBSITE = { id: 'bench-shop', token: 'bench-token' };

/**
 * One simulated hour: every instance answers a browser each step; the upstream is a stub that
 * counts. The clock is simulated, so an hour takes seconds; instances are asked one after the
 * other within a step, as a load balancer spreads browsers.
 */
async function upstreamRequestsInAnHour(instances: number, storeFor: (index: number) => RelayStore): Promise<number> {
  let clock = Date.parse('2026-11-22T10:00:00.000Z');
  let upstream = 0;
  const fleet: RelayHandler[] = Array.from({ length: instances }, (_, index) =>
    createRelay({
      config: { upstream: 'https://analytics.example', websites: [WEBSITE], interval: INTERVAL_SECONDS, hourlyBudget: 1_000_000 },
      store: storeFor(index),
      now: () => clock,
      log: () => undefined,
      fetch: async () => {
        upstream += 1;
        const body = { currentVisitors: 23, websiteId: WEBSITE.id, timestamp: new Date(clock).toISOString() };
        return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
      },
    }),
  );
  const end = clock + HOUR_MS;
  for (; clock < end; clock += STEP_MS) {
    for (const relay of fleet) {
      const answer = await relay(new Request(`http://relay.test/api/v1/realtime?websiteId=${WEBSITE.id}`));
      if (answer.status !== 200) throw new Error(`the fleet answered ${answer.status}`);
    }
  }
  return upstream;
}

export async function benchRelayFleet(): Promise<void> {
  const redis = await startRedisServer();
  const stores: RelayStore[] = [];
  try {
    const rows: Array<Record<string, string | number>> = [];
    for (const instances of FLEETS) {
      const memory = await upstreamRequestsInAnHour(instances, () => new MemoryStore());
      // One client per instance, as separate processes would have; a fresh prefix per fleet.
      const prefix = `bench-${instances}:`;
      const clients = await Promise.all(
        Array.from({ length: instances }, () => RedisStore.connect({ url: redis.url, prefix, log: () => undefined })),
      );
      stores.push(...clients);
      const shared = await upstreamRequestsInAnHour(instances, (index) => clients[index]!);
      for (const [store, requests] of [
        ['memory (each instance its own)', memory],
        ['Redis (shared)', shared],
      ] as const) {
        rows.push({
          instances,
          store,
          'upstream requests / hour': requests,
          'vs one instance': ratio(requests, 60),
          ...Object.fromEntries(
            PLANS.map(({ plan, limit }) => [`${plan} (${limit.toLocaleString('en-US')})`, requests <= limit ? 'fits' : 'over']),
          ),
        });
      }
    }
    printTable(
      `Relay fleet, one simulated hour: every instance asked every ${STEP_MS / 1000} s, interval ${INTERVAL_SECONDS} s, one website; ` +
        "upstream requests counted at a stub service, against the plans' hourly limits",
      rows,
    );
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await redis.close();
  }
}
