// @vitest-environment node
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serveOnNode } from '../../server-kit/serve.js';
import { createRelay } from '../src/relay.js';
import { DurableObjectStore, type RelayCoordinatorNamespace } from '../src/store/durable-object-store.js';
import { RedisStore } from '../src/store/redis-store.js';
import { defaultRelayConfig, SHOP, START_MS, toAnswer } from './support/relay-harness.js';
import { virtualTimers } from './support/virtual-timers.js';

/**
 * Issue 30 §2: every wait of the relay runs on the timers it is given, so a test moves them. Each
 * case below waits on something that never answers, with a deadline far longer than the test's
 * own timeout: it ends only because the virtual timers reach it, and the wait is in their list.
 */

// workerd's own module, which Node has not: the store under test only calls its coordinator's stub.
vi.mock('cloudflare:workers', () => ({ DurableObject: class {} }));

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A TCP server on loopback that plays a hung Redis: with `answersHandshake`, it says OK to every
 * command until the first GET, then never another word; without, it never says a word at all.
 */
async function hungRedis(answersHandshake: boolean): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let hung = !answersHandshake;
    socket.on('data', (chunk) => {
      if (hung) return;
      // One RESP array header per command (`*<count>`), one OK each, until a GET hangs the server.
      for (const line of chunk.toString('latin1').split('\r\n')) {
        if (line.toUpperCase() === 'GET') hung = true;
        if (!hung && line.startsWith('*')) socket.write('+OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('every wait of the relay runs on its injected timers', () => {
  it("the upstream request's timeout: a service that never answers is a 504 when the timers say so", async () => {
    const timers = virtualTimers();
    const relay = createRelay({
      config: defaultRelayConfig('https://analytics.example'),
      now: () => START_MS,
      timers,
      // Ignores its signal too: only the deadline can end it.
      fetch: () => new Promise<Response>(() => {}),
      upstreamTimeoutMs: 60_000,
      log: () => {},
    });
    const answer = await toAnswer(await relay(new Request(`http://relay.test/api/v1/realtime?websiteId=${SHOP.id}`)));
    expect(answer.status).toBe(504);
    expect(answer.json).toEqual({ error: expect.stringMatching(/^The analytics service did not answer within 60 s/) });
    // The browser's wait (upstream timeout + 1.5 s) and the upstream deadline, both on the injected timers.
    expect(timers.waits).toEqual(expect.arrayContaining([61_500, 60_000]));
  });

  it("a Redis store's first contact: a Redis that never finishes the handshake is waited for on the timers", async () => {
    const port = await hungRedis(false);
    const timers = virtualTimers();
    const logs: string[] = [];
    const store = await RedisStore.connect({ url: `redis://127.0.0.1:${port}`, prefix: 'timers:', log: (line) => logs.push(line), timers });
    cleanups.push(() => store.close());
    expect(logs.join('\n')).toMatch(/did not answer within 2000 ms; the relay starts anyway/);
    expect(timers.waits).toContain(2_000);
  });

  it("a Redis store's commands: a command Redis takes and never answers ends at the timers' deadline", async () => {
    const port = await hungRedis(true);
    const timers = virtualTimers();
    const logs: string[] = [];
    const store = await RedisStore.connect({
      url: `redis://127.0.0.1:${port}`,
      prefix: 'timers:',
      log: (line) => logs.push(line),
      commandTimeoutMs: 30_000,
      timers,
    });
    cleanups.push(() => store.close());
    // The virtual first contact ends before the real handshake does: wait (really) until the connection is ready.
    for (let tries = 0; tries < 100 && !logs.some((line) => line.includes('answers again')); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await expect(store.read(SHOP.id)).rejects.toThrow(/no answer within 30000 ms/);
    expect(timers.waits).toContain(30_000);
  });

  it("a Durable Object store's calls: a coordinator that never answers is given up on when the timers say so", async () => {
    const timers = virtualTimers();
    const never = () => new Promise<never>(() => {});
    const namespace: RelayCoordinatorNamespace = {
      idFromName: (name) => name,
      get: () => ({ read: never, write: never, claim: never, release: never, takeBudget: never }),
    };
    const store = new DurableObjectStore(namespace, { timeoutMs: 45_000, timers });
    await expect(store.read(SHOP.id)).rejects.toThrow('did not answer read within 45000 ms');
    expect(timers.waits).toEqual([45_000]);
  });

  it("the Node server's close: answers under way get the grace time of the timers, then the connections are cut", async () => {
    const timers = virtualTimers();
    const server = await serveOnNode(() => new Promise<Response>(() => {}), { port: 0, graceMs: 120_000, timers });
    const request = fetch(`${server.url}/`).catch((error: unknown) => error);
    // The request reaches the handler before the close starts.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    expect(await request).toBeInstanceOf(Error);
    expect(timers.waits).toEqual(expect.arrayContaining([120_000, 25]));
  });
});
