import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorServer } from '../../../emulator/src/index.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { relayEnvironment, startContractEmulator } from './contract-checks.js';
import { BIN, ensureRelayBuilt, type RelayUnderTest, ROOT, startRelayProcess, TEMPLATES } from './runtime-support.js';

/**
 * One fleet of mixed runtimes on one real Redis: Bun, Deno and the Node bin, each the template
 * unchanged with `LIVE_VISITORS_STORE` set, share the upstream request and the hourly budget.
 */
describe('a fleet of Bun, Deno and Node relays on one Redis', () => {
  let redis: RedisServer;
  let emulator: EmulatorServer;
  let fleet: RelayUnderTest[] = [];
  const served = () => emulator.emulator.stats().trackedRateLimitRequests;

  beforeAll(async () => {
    await ensureRelayBuilt();
    [redis, emulator] = await Promise.all([startRedisServer(), startContractEmulator()]);
    const environment = relayEnvironment(emulator.url, { LIVE_VISITORS_STORE: redis.url, LIVE_VISITORS_STORE_PREFIX: 'mixed-fleet:' });
    fleet = await Promise.all([
      startRelayProcess(join(BIN, 'bun'), ['--no-install', 'server.ts'], {
        cwd: join(TEMPLATES, 'bun'),
        env: { ...environment, PORT: '0' },
      }),
      startRelayProcess(join(BIN, 'deno'), ['run', '--cached-only', '--allow-net', '--allow-env', '--allow-read', 'main.ts'], {
        cwd: join(TEMPLATES, 'deno'),
        env: { ...environment, PORT: '0', DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
      }),
      startRelayProcess(
        process.execPath,
        [join(ROOT, 'relay/dist/cli.js'), '--port', '0', '--config', join(TEMPLATES, 'node/relay.json')],
        {
          cwd: join(TEMPLATES, 'node'),
          env: environment,
        },
      ),
    ]);
  }, 150_000);

  afterAll(async () => {
    await Promise.all(fleet.map((relay) => relay.stop()));
    await emulator?.close();
    await redis?.close();
  });

  it('answers 90 concurrent browsers spread over the three runtimes from one upstream request', async () => {
    const answers = await Promise.all(
      Array.from({ length: 90 }, (_, index) => fetch(`${fleet[index % fleet.length]!.url}/api/v1/realtime?websiteId=shop-a`)),
    );
    const bodies = await Promise.all(answers.map((answer) => answer.text()));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(new Set(bodies).size).toBe(1);
    expect(served()).toBe(1);
  });

  it('keeps the shared state in Redis under the prefix, with an expiry and no token', async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const keys = (await client.keys('mixed-fleet:*')).sort();
      expect(keys).toEqual(['mixed-fleet:budget', 'mixed-fleet:state:{shop-a}']);
      for (const key of keys) expect(await client.pTTL(key)).toBeGreaterThan(0);
      const state = (await client.get('mixed-fleet:state:{shop-a}')) ?? '';
      expect(state).toContain('"websiteId\\":\\"shop-a\\"');
      expect(state).not.toMatch(/SECRET/);
      expect(fleet.map((relay) => relay.output()).join('\n')).not.toMatch(/SECRET/);
    } finally {
      await client.quit();
    }
  });
});
