// @vitest-environment node
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { type RelayInstance, startInstance, stopInstance } from './support/relay-processes.js';

/**
 * Issue 35 finding 8: a body over the registration API's cap is answered 413 early, and the
 * client's next request on that connection must not meet a reset or a hang. Run against the relay
 * as a process, on the file store and on a real Redis, asked by Node's own fetch (undici, which
 * reuses connections) and by curl.
 */

const ONE_MEGABYTE = 'x'.repeat(1024 * 1024);
const WEBSITES = '/api/v1/websites/big-body';

let folder: string;
let redis: RedisServer;
const relays = new Map<string, RelayInstance>();
let relay: RelayInstance;

beforeAll(async () => {
  [folder, redis] = await Promise.all([mkdtemp(join(tmpdir(), 'relay-413-')), startRedisServer()]);
  const backends = { 'the file store': { registrationsFile: join(folder, 'registrations.json') }, Redis: { store: redis.url } };
  for (const [name, backend] of Object.entries(backends)) {
    const config = {
      // Nothing here reaches a service: every request is refused before any would be sent.
      upstream: 'http://127.0.0.1:9',
      websites: [],
      selfServe: true,
      encryptionKeys: [`k1:${btoa('a'.repeat(32))}`],
      ...backend,
    };
    const path = join(folder, `${name.replace(/\W/g, '')}.json`);
    await writeFile(path, JSON.stringify(config));
    relays.set(name, await startInstance(path));
  }
}, 60_000);

afterAll(async () => {
  await Promise.all([...relays.values()].map(stopInstance));
  await redis?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** The status, or the error's code (ECONNRESET, a timeout): what the client saw. */
async function outcome(path: string, init: RequestInit = {}): Promise<number | string> {
  try {
    const response = await fetch(`${relay.url}${path}`, { ...init, signal: AbortSignal.timeout(3_000) });
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? (error as Error).name;
  }
}

describe.each(['the file store', 'Redis'])('a body over the cap, on %s', (backend) => {
  beforeAll(() => {
    relay = relays.get(backend)!;
  });

  it("leaves Node fetch's next requests unharmed, three times in three", async () => {
    const seen: (number | string)[] = [];
    for (let round = 0; round < 3; round += 1) {
      seen.push(await outcome(WEBSITES, { method: 'PUT', headers: { Authorization: 'Bearer tok-0000' }, body: ONE_MEGABYTE }));
      seen.push(await outcome('/api/v1/realtime?websiteId=nobody'));
    }
    expect(seen).toEqual([413, 404, 413, 404, 413, 404]);
  }, 30_000);

  it('answers 413 as JSON and closes the connection, so curl opens a new one for its next request', async () => {
    const body = join(folder, 'big.json');
    await writeFile(body, ONE_MEGABYTE);
    const { stdout } = await promisify(execFile)('curl', [
      '--max-time',
      '5',
      '-sS',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code} %{num_connects}\\n',
      '-X',
      'PUT',
      '-H',
      'Authorization: Bearer tok-0000',
      '--data-binary',
      `@${body}`,
      `${relay.url}${WEBSITES}`,
      '--next',
      '-sS',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code} %{num_connects}\\n',
      `${relay.url}/api/v1/realtime?websiteId=nobody`,
    ]);
    expect(stdout.trim().split('\n')).toEqual(['413 1', '404 1']);
    const refused = await fetch(`${relay.url}${WEBSITES}`, { method: 'PUT', body: ONE_MEGABYTE });
    expect(refused.headers.get('connection')).toBe('close');
    expect(((await refused.json()) as { error: string }).error).toMatch(/at most 16 KB/);
  }, 30_000);
});
