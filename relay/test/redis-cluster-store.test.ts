import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../src/store/redis-store.js';
import type { SharedWebsiteState } from '../src/store/relay-store.js';
import { type RedisCluster, startRedisCluster } from './support/redis-cluster.js';
import { SHOP, startRelayHarness } from './support/relay-harness.js';

const T0 = Date.UTC(2026, 10, 29, 6, 0, 0);
const WEBSITES = Array.from({ length: 12 }, (_, index) => `shop-${index}`);
const stateOf = (websiteId: string): SharedWebsiteState => ({
  answer: {
    body: JSON.stringify({ currentVisitors: 7, websiteId, timestamp: new Date(T0).toISOString() }),
    etag: `"${websiteId}"`,
    fetchedAtMs: T0,
  },
  failures: 0,
  nextAttemptAtMs: T0 + 60_000,
  failure: null,
});

let cluster: RedisCluster;
let store: RedisStore;
beforeAll(async () => {
  cluster = await startRedisCluster();
  store = await RedisStore.connect({ url: cluster.url, prefix: 'cluster:', log: () => undefined });
}, 60_000);
afterAll(async () => {
  await store?.close();
  await cluster?.close();
});

/** The keys each master holds under `prefix`, read from each node directly. */
async function keysByNode(prefix: string): Promise<string[][]> {
  return Promise.all(
    cluster.nodes.map(async (node) => {
      const client = createClient({ url: node.url });
      await client.connect();
      try {
        return await client.keys(`${prefix}*`);
      } finally {
        await client.close();
      }
    }),
  );
}

describe("the relay's Redis store on a real Redis Cluster (three masters)", () => {
  it('keeps answers and claims per website, each through the node that owns the website', async () => {
    for (const websiteId of WEBSITES) await store.write(websiteId, stateOf(websiteId), 60_000);
    for (const websiteId of WEBSITES) expect(await store.read(websiteId)).toEqual(stateOf(websiteId));
    for (const websiteId of WEBSITES) {
      expect(await store.claim(websiteId, 'instance-a', 10_000)).toBe(true);
      expect(await store.claim(websiteId, 'instance-b', 10_000)).toBe(false);
      await store.release(websiteId, 'instance-b');
      expect(await store.claim(websiteId, 'instance-b', 10_000)).toBe(false);
      await store.release(websiteId, 'instance-a');
      expect(await store.claim(websiteId, 'instance-b', 10_000)).toBe(true);
    }
    expect(await store.read('never-written')).toBeNull();
  });

  it("puts every website's keys in one hash slot, on one node, and spreads the websites over the masters", async () => {
    const byNode = await keysByNode('cluster:');
    const nodesOf = new Map<string, Set<number>>();
    byNode.forEach((keys, node) => {
      for (const key of keys) {
        const websiteId = /\{(.+)\}$/.exec(key)?.[1];
        if (websiteId === undefined) continue;
        nodesOf.set(websiteId, (nodesOf.get(websiteId) ?? new Set()).add(node));
      }
    });
    expect([...nodesOf.keys()].sort()).toEqual([...WEBSITES].sort());
    for (const [websiteId, nodes] of nodesOf) expect({ websiteId, nodes: nodes.size }).toEqual({ websiteId, nodes: 1 });
    expect(new Set([...nodesOf.values()].flatMap((nodes) => [...nodes])).size).toBeGreaterThan(1);
  });

  it("counts the fleet's hourly budget in one key, whatever node holds it", async () => {
    const decisions = [];
    for (let request = 0; request < 3; request += 1) decisions.push((await store.takeBudget(Date.now() + request, 2)).taken);
    expect(decisions).toEqual([true, true, false]);
  });

  it('answers a ping, so /readyz can say the cluster answers', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('serves a website through a relay whose config names the cluster (redis+cluster://)', async () => {
    const clusterStore = await RedisStore.connect({ url: cluster.url, prefix: 'cluster-relay:', log: () => undefined });
    const harness = await startRelayHarness({
      config: { store: cluster.url, storePrefix: 'cluster-relay:' },
      relay: { store: clusterStore },
    });
    try {
      const answer = await harness.get(`?websiteId=${SHOP.id}`);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toMatchObject({ websiteId: SHOP.id });
      const byNode = await keysByNode('cluster-relay:');
      expect(byNode.flat().sort()).toEqual(['cluster-relay:budget', `cluster-relay:state:{${SHOP.id}}`]);
      expect(harness.upstreamCalls).toHaveLength(1);
    } finally {
      await harness.close();
      await clusterStore.close();
    }
  });
});

describe('a Redis Cluster in the config: redis+cluster://host:port,host:port', () => {
  it('reads every seed node, keeps the credentials out of its label, and refuses what is no list of nodes', async () => {
    const { parseRedisUrl } = await import('../src/store/redis-url.js');
    const target = parseRedisUrl('redis+cluster://user:pa%40ss@10.0.0.1:7000,10.0.0.2:7001');
    expect(target.clusterSeeds).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
    ]);
    expect(target).toMatchObject({ username: 'user', password: 'pa@ss', label: 'redis+cluster://10.0.0.1:7000,10.0.0.2:7001' });
    expect(parseRedisUrl('redis://127.0.0.1:6379/0').clusterSeeds).toBeNull();
    for (const url of ['redis+cluster://', 'redis+cluster://a:1,,b:2', 'redis+cluster://a:1/0', 'redis+cluster://:pw@a:1,b:0']) {
      expect(() => parseRedisUrl(url)).toThrow(/^store/);
    }
  });
});

describe('a self-serving relay on a Redis Cluster', () => {
  it('is refused by the config check, saying why, until the registrations can live on a cluster', async () => {
    const { parseRelayConfig } = await import('../src/config.js');
    const config = {
      upstream: 'https://analytics.example',
      selfServe: true,
      encryptionKeys: [`k1:${btoa('a'.repeat(32))}`],
      store: 'redis+cluster://127.0.0.1:7000',
    };
    expect(() => parseRelayConfig(config)).toThrow(/selfServe does not run on a Redis Cluster yet/);
    expect(() => parseRelayConfig({ ...config, store: 'redis://127.0.0.1:6379/0' })).not.toThrow();
  });
});
