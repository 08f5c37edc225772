import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type RedisServer, startRedisServer } from './redis-server.js';

const run = promisify(execFile);
/** Slots assigned and agreed by every node: well within this on loopback. */
const READY_TIMEOUT_MS = 30_000;

export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:<port>,…`: every master as a seed node. */
  readonly url: string;
  /** The masters, each a real redis-server on loopback that a test may stop. */
  readonly nodes: readonly RedisServer[];
  /** Stops every node and removes their folders. */
  close(): Promise<void>;
}

/**
 * A real Redis Cluster on loopback: three Debian `redis-server` processes in cluster mode, joined by
 * `redis-cli --cluster create` with no replicas, ready once every node says `cluster_state:ok`.
 */
export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const nodes: RedisServer[] = [];
  try {
    for (let index = 0; index < masters; index += 1) {
      nodes.push(
        await startRedisServer({
          arguments: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000'],
        }),
      );
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: READY_TIMEOUT_MS,
    });
    await untilAgreed(nodes);
    return {
      url: `redis+cluster://${addresses.join(',')}`,
      nodes,
      async close() {
        await Promise.all(nodes.map((node) => node.close()));
      },
    };
  } catch (error) {
    await Promise.all(nodes.map((node) => node.close()));
    throw error;
  }
}

/** Every node has all 16,384 slots mapped and calls the cluster ok; bounded. */
async function untilAgreed(nodes: readonly RedisServer[]): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const infos = await Promise.all(
      nodes.map(async (node) => (await run('redis-cli', ['-p', String(node.port), 'cluster', 'info'], { timeout: 5_000 })).stdout),
    );
    if (infos.every((info) => info.includes('cluster_state:ok') && info.includes('cluster_slots_assigned:16384'))) return;
    if (Date.now() > deadline) throw new Error(`the Redis Cluster did not agree within ${READY_TIMEOUT_MS / 1000} s:\n${infos.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
