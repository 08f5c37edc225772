// @vitest-environment node
import { createServer, type Server, type Socket } from 'node:net';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort } from '../../test/support/network.js';
import { RedisStore } from '../src/store/redis-store.js';
import type { RelayStore, SharedWebsiteState } from '../src/store/relay-store.js';
import { readWebsiteState } from '../src/store/stored-records.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { START_MS } from './support/relay-harness.js';

const PASSWORD = 'pw-SECRET-5b81e';
/** The store's commands time out after 500 ms: anything slower than this has hung. */
const SETTLE_BOUND_MS = 1_000;

const STATE: SharedWebsiteState = {
  answer: null,
  failures: 1,
  nextAttemptAtMs: START_MS + 120_000,
  failure: { kind: 'timeout', status: null, reason: 'did not answer within 5 s' },
};

let logs: string[] = [];
const stores: RelayStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  logs = [];
});

async function connect(url: string, prefix = 'faults:'): Promise<RedisStore> {
  const store = await RedisStore.connect({ url, prefix, log: (line) => logs.push(line) });
  stores.push(store);
  return store;
}

type Outcome =
  | { readonly settled: 'resolved'; readonly value: unknown }
  | { readonly settled: 'rejected'; readonly message: string }
  | { readonly settled: 'pending' };

/** How a promise ended within `boundMs`, judged against a timer rather than a stopwatch. */
async function outcomeWithin(promise: Promise<unknown>, boundMs = SETTLE_BOUND_MS): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ settled: 'pending' }), boundMs);
  });
  const settled = promise.then(
    (value): Outcome => ({ settled: 'resolved', value }),
    (error: unknown): Outcome => ({ settled: 'rejected', message: error instanceof Error ? error.message : String(error) }),
  );
  try {
    return await Promise.race([settled, pending]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every method of the store, once each, for a website of its own. */
const EVERY_METHOD: ReadonlyArray<readonly [string, (store: RelayStore) => Promise<unknown>]> = [
  ['read', (store) => store.read('shop-a')],
  ['write', (store) => store.write('shop-a', STATE, 60_000)],
  ['claim', (store) => store.claim('shop-a', 'holder-1', 10_000)],
  ['release', (store) => store.release('shop-a', 'holder-1')],
  ['takeBudget', (store) => store.takeBudget(START_MS, 10)],
];

async function outcomesOfEveryMethod(store: RelayStore): Promise<Record<string, Outcome>> {
  const entries = await Promise.all(EVERY_METHOD.map(async ([name, call]) => [name, await outcomeWithin(call(store))] as const));
  return Object.fromEntries(entries);
}

describe('a malformed store URL', () => {
  it.each([
    ['another scheme', `http://user:${PASSWORD}@127.0.0.1:6379/0`, /scheme is "http:"/],
    ['no URL at all', `${PASSWORD}@127.0.0.1`, /cannot be parsed/],
    ['an empty string', '', /cannot be parsed/],
    ['a port out of range', `redis://:${PASSWORD}@127.0.0.1:99999/0`, /cannot be parsed/],
    ['port 0', `redis://:${PASSWORD}@127.0.0.1:0/0`, /port from 1 to 65535/],
    ['a database that is not a number', `redis://:${PASSWORD}@127.0.0.1:6379/zero`, /database .* whole number/],
    ['a negative database', `redis://:${PASSWORD}@127.0.0.1:6379/-1`, /database .* whole number/],
    ['a path after the database', `redis://:${PASSWORD}@127.0.0.1:6379/0/extra`, /database .* whole number/],
    ['a query', `redis://127.0.0.1:6379/0?password=${PASSWORD}`, /query or fragment/],
    ['a fragment', `redis://127.0.0.1:6379/0#${PASSWORD}`, /query or fragment/],
    ['no host', `redis://:${PASSWORD}@/0`, /host|cannot be parsed/],
    ['a password that is not percent-encoding', 'redis://:pw-%zz-SECRET@127.0.0.1:6379/0', /percent-encoding/],
  ])('is refused with a clear error (%s), never quoting the password', async (_, url, message) => {
    const refused = await outcomeWithin(RedisStore.connect({ url, prefix: 'p:', log: (line) => logs.push(line) }));
    expect(refused.settled).toBe('rejected');
    const text = (refused as { message: string }).message;
    expect(text).toMatch(/^store/);
    expect(text).toMatch(message);
    expect(text).toContain('redis://127.0.0.1:6379/0');
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain('SECRET');
    expect(logs).toEqual([]);
  });
});

describe('Redis unreachable when the relay starts', () => {
  it('connects anyway, says so in one line naming store and the cause, and every method rejects at once', async () => {
    const port = await freePort();
    const store = await connect(`redis://:${PASSWORD}@127.0.0.1:${port}/0`);
    const outcomes = await outcomesOfEveryMethod(store);
    for (const [method, outcome] of Object.entries(outcomes)) {
      expect({ method, outcome }).toEqual({
        method,
        outcome: {
          settled: 'rejected',
          message: expect.stringMatching(new RegExp(`^store: Redis at redis://127\\.0\\.0\\.1:${port}/0 could not `)),
        },
      });
    }
    // The client retries every second or so; the outage is still one line.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(new RegExp(`^store: Redis at redis://127\\.0\\.0\\.1:${port}/0 is unreachable \\(.*ECONNREFUSED.*\\)`));
    expect(JSON.stringify([logs, outcomes])).not.toContain(PASSWORD);
  });

  it('gives up waiting on a server that accepts but never finishes the handshake', async () => {
    const silent = await fakeServer(() => undefined);
    try {
      const connecting = RedisStore.connect({ url: `redis://127.0.0.1:${silent.port}/0`, prefix: 'p:', log: (line) => logs.push(line) });
      const connected = await outcomeWithin(connecting, 5_000);
      expect(connected.settled).toBe('resolved');
      const store = (connected as { value: RedisStore }).value;
      stores.push(store);
      expect(logs).toEqual([expect.stringMatching(/^store: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 did not answer within \d+ ms/)]);
      for (const outcome of Object.values(await outcomesOfEveryMethod(store))) expect(outcome.settled).toBe('rejected');
    } finally {
      await silent.close();
    }
  });
});

describe('a real Redis with a password', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer({ password: PASSWORD });
  });
  afterAll(() => redis?.close());

  const withPassword = (password = PASSWORD) => `redis://:${encodeURIComponent(password)}@127.0.0.1:${redis.port}/0`;

  it('is refused with the wrong password: methods reject, the log names the cause, no password anywhere', async () => {
    const store = await connect(withPassword('wrong-SECRET-pw'));
    const outcomes = await outcomesOfEveryMethod(store);
    for (const outcome of Object.values(outcomes)) expect(outcome.settled).toBe('rejected');
    expect(logs).toEqual([expect.stringMatching(/^store: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 refused the connection \(WRONGPASS/)]);
    expect(JSON.stringify([logs, outcomes])).not.toMatch(/SECRET/);
  });

  it('stopped mid-run: methods reject at once; back: the same store works again', async () => {
    const store = await connect(withPassword());
    await store.write('shop-a', STATE, 60_000);
    expect(await store.read('shop-a')).toEqual(STATE);
    expect(logs).toEqual([]);

    await redis.stop();
    const whileDown = await outcomesOfEveryMethod(store);
    for (const [method, outcome] of Object.entries(whileDown)) {
      expect({ method, outcome }).toEqual({
        method,
        outcome: { settled: 'rejected', message: expect.stringMatching(/^store: Redis at .* could not /) },
      });
    }
    expect(logs).toEqual([expect.stringMatching(/^store: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 failed \(/)]);

    await redis.start();
    // Reconnection backs off to a second at most.
    await eventually(async () => (await outcomeWithin(store.read('shop-a'))).settled === 'resolved');
    // A Redis without persistence comes back empty: the state is gone, and everything works.
    expect(await store.read('shop-a')).toBeNull();
    await store.write('shop-a', STATE, 60_000);
    expect(await store.read('shop-a')).toEqual(STATE);
    expect(await store.claim('shop-a', 'holder-1', 10_000)).toBe(true);
    await store.release('shop-a', 'holder-1');
    // The budget script was forgotten with the restart: EVALSHA falls back to EVAL.
    expect(await store.takeBudget(START_MS, 1)).toEqual({ taken: true, nextRoomAtMs: START_MS + 3_600_000 });
    expect(logs).toHaveLength(2);
    expect(logs[1]).toMatch(/^store: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 answers again/);
    expect(JSON.stringify(logs)).not.toContain(PASSWORD);
  });

  it('frozen mid-run (hung): methods reject within the bound; thawed: late replies confuse nothing', async () => {
    const prefix = 'frozen:';
    const store = await connect(withPassword(), prefix);
    expect(await store.claim('shop-a', 'holder-1', 60_000)).toBe(true);
    redis.freeze();
    try {
      const whileHung = await outcomesOfEveryMethod(store);
      for (const [method, outcome] of Object.entries(whileHung)) {
        expect({ method, outcome }).toEqual({
          method,
          outcome: { settled: 'rejected', message: expect.stringMatching(/no answer within 500 ms$/) },
        });
      }
    } finally {
      redis.thaw();
    }
    // The abandoned commands ran late (the claim's release among them); each later reply still
    // reaches its own command: a claim is granted once, refused after.
    await eventually(async () => (await outcomeWithin(store.read('shop-b'))).settled === 'resolved');
    await store.release('shop-a', 'holder-1');
    expect(await store.claim('shop-a', 'holder-2', 60_000)).toBe(true);
    expect(await store.claim('shop-a', 'holder-3', 60_000)).toBe(false);
    expect(await store.read('shop-a')).toEqual(STATE);
  });

  describe('keys another program filled with something else', () => {
    let inspector: ReturnType<typeof createClient>;
    beforeAll(async () => {
      inspector = createClient({ url: withPassword() });
      inspector.on('error', () => {});
      await inspector.connect();
    });
    afterAll(() => inspector?.destroy());

    it('reads a state key holding a hash as no state, deletes it and says so once (issue 25: wrong type is garbage, not an outage)', async () => {
      const store = await connect(withPassword(), 'wrongtype:');
      await inspector.hSet('wrongtype:state:{shop-a}', { answer: 'none' });
      expect(await outcomeWithin(store.read('shop-a'))).toEqual({ settled: 'resolved', value: null });
      expect(await inspector.exists('wrongtype:state:{shop-a}')).toBe(0);
      await inspector.hSet('wrongtype:state:{shop-a}', { answer: 'again' });
      expect(await store.read('shop-a')).toBeNull();
      expect(logs).toEqual([
        expect.stringMatching(/^store: the key wrongtype:state:\{shop-a\} held a hash, which no relay writes; deleted it/),
      ]);
    });

    it('hands back a state key holding text that is not JSON, or JSON of another shape, unread: only readWebsiteState interprets it', async () => {
      const store = await connect(withPassword(), 'garbage:');
      await inspector.set('garbage:state:{shop-a}', '\u0000\u00ff not json', { expiration: { type: 'PX', value: 60_000 } });
      await inspector.set('garbage:state:{shop-b}', '[1,2,3]', { expiration: { type: 'PX', value: 60_000 } });
      const context = { nowMs: START_MS, intervalMs: 60_000 };
      expect(readWebsiteState(await store.read('shop-a'), { websiteId: 'shop-a', ...context })).toEqual({
        state: null,
        problem: 'not-a-state',
      });
      expect(readWebsiteState(await store.read('shop-b'), { websiteId: 'shop-b', ...context })).toEqual({
        state: null,
        problem: 'not-a-state',
      });
    });

    it('replaces a budget whose key holds a string, counts the request, and says so once', async () => {
      const store = await connect(withPassword(), 'badbudget:');
      await inspector.set('badbudget:budget', 'seven', { expiration: { type: 'PX', value: 60_000 } });
      expect(await outcomeWithin(store.takeBudget(START_MS, 3))).toEqual({
        settled: 'resolved',
        value: { taken: true, nextRoomAtMs: START_MS },
      });
      expect(await inspector.type('badbudget:budget')).toBe('zset');
      expect(logs).toEqual([expect.stringMatching(/^store: the key badbudget:budget held a string, which no relay writes; replaced it/)]);
    });
  });
});

describe('a server that does not speak Redis', () => {
  /** Seeded, so a failure can be replayed. */
  function randomBytes(seed: number, length: number): Buffer {
    let state = seed;
    return Buffer.from(
      Array.from({ length }, () => {
        state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
        return state % 256;
      }),
    );
  }

  /** The client's handshake: two CLIENT SETINFO, whose answers it ignores. */
  const afterHandshake = (reply: (index: number) => string | Buffer | undefined) => (index: number) =>
    index < 2 ? '+OK\r\n' : reply(index);

  it.each([
    ['an error to everything', () => '-ERR boom\r\n'],
    ['a number to everything', () => ':42\r\n'],
    ['an array to everything', () => '*2\r\n$3\r\nabc\r\n:1\r\n'],
    ['nothing (null) to everything', () => '$-1\r\n'],
    ['random bytes', (index: number) => randomBytes(index + 1, 64)],
    ['random bytes after a normal handshake', afterHandshake((index) => randomBytes(index + 1, 64))],
    ['an HTTP answer', () => 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'],
    ['no answer after a normal handshake (hung)', afterHandshake(() => undefined)],
  ])('answering %s: every method rejects or answers nothing, within a bound, and nothing crashes', async (_, reply) => {
    const fake = await fakeServer((socket, index) => {
      const bytes = reply(index);
      if (bytes !== undefined) socket.write(bytes);
    });
    try {
      const store = await connect(`redis://127.0.0.1:${fake.port}/0`);
      const outcomes = await outcomesOfEveryMethod(store);
      for (const [method, outcome] of Object.entries(outcomes)) {
        if (outcome.settled === 'pending') expect.fail(`${method} did not settle`);
        else if (outcome.settled === 'rejected')
          expect(outcome.message, method).toMatch(/^store: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 (could not|answered)/);
        // Only a "nothing" may come back as a value: no state, no claim.
        else expect([null, false], method).toContainEqual(outcome.value);
      }
      // A second round: the connection is still usable (or reconnects), and still bounded.
      for (const outcome of Object.values(await outcomesOfEveryMethod(store))) expect(outcome.settled).not.toBe('pending');
      // At most one line, however often it misbehaves.
      expect(logs.length).toBeLessThanOrEqual(1);
    } finally {
      await fake.close();
    }
  });

  it('closing every connection at once: methods reject at once, one log line', async () => {
    const fake = await fakeServer((socket) => socket.destroy(), { onConnect: true });
    try {
      const store = await connect(`redis://127.0.0.1:${fake.port}/0`);
      for (const outcome of Object.values(await outcomesOfEveryMethod(store))) expect(outcome.settled).toBe('rejected');
      expect(logs).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });
});

interface FakeServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A TCP server on a loopback port that calls `answer` once per command it receives (a RESP array
 * of bulk strings, as clients send them), or once per connection with `onConnect`.
 */
async function fakeServer(answer: (socket: Socket, index: number) => void, options: { onConnect?: boolean } = {}): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  let index = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    if (options.onConnect) {
      answer(socket, index++);
      return;
    }
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      for (let length = commandLength(received); length > 0; length = commandLength(received)) {
        received = received.slice(length);
        answer(socket, index++);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return {
    port: address.port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The length of the first complete command in `text` (`*N` then N `$L` bulk strings), or 0. */
function commandLength(text: string): number {
  const header = /^\*(\d+)\r\n/.exec(text);
  if (!header) return 0;
  let at = header[0].length;
  for (let argument = 0; argument < Number(header[1]); argument += 1) {
    const bulk = /^\$(\d+)\r\n/.exec(text.slice(at));
    if (!bulk) return 0;
    at += bulk[0].length + Number(bulk[1]) + 2;
    if (at > text.length) return 0;
  }
  return at;
}
