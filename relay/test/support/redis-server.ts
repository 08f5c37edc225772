import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../test/support/network.js';

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
const INSTALL_HINT = 'redis-server is not installed: apt-get install redis-server (.ci/run installs it)';

export interface RedisServerOptions {
  /** Started with `--requirepass`: clients must send this password. */
  readonly password?: string;
  /** More of redis-server's options, e.g. `--cluster-enabled yes` for a cluster node. */
  readonly arguments?: readonly string[];
}

export interface RedisServer {
  /** Loopback port, the same across stop() and start(). */
  readonly port: number;
  /** `redis://127.0.0.1:<port>/0`, without credentials. */
  readonly url: string;
  readonly isRunning: boolean;
  /** Starts it again on the same port (after stop()); resolves once it answers PING. */
  start(): Promise<void>;
  /** SIGTERM, and resolves once the process has exited: from then on the port refuses connections. */
  stop(): Promise<void>;
  /** SIGSTOP: it keeps its connections but answers nothing, as a hung Redis does. */
  freeze(): void;
  /** SIGCONT: it answers everything it was sent meanwhile. */
  thaw(): void;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

/**
 * Debian's `redis-server` on a free 127.0.0.1 port, memory only (no RDB, no AOF) in a folder of its
 * own, so tests talk to a real Redis and can stop it under the relay and bring it back.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'relay-redis-'));
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  // A test runner that dies must not leave a Redis behind.
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  const start = async (): Promise<void> => {
    if (child) throw new Error(`redis-server on port ${port} is already running`);
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
    if (options.password !== undefined) args.push('--requirepass', options.password);
    args.push(...(options.arguments ?? []));
    const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let output = '';
    const collect = (chunk: Buffer) => {
      output = `${output}${chunk.toString()}`.slice(-4_000);
    };
    started.stdout?.on('data', collect);
    started.stderr?.on('data', collect);
    const failedToSpawn = new Promise<never>((_, reject) => {
      started.once('error', (error: NodeJS.ErrnoException) => {
        reject(error.code === 'ENOENT' ? new Error(INSTALL_HINT) : error);
      });
    });
    exited = new Promise<void>((resolve) => {
      started.once('exit', () => {
        if (child === started) child = undefined;
        resolve();
      });
      started.once('error', () => {
        if (child === started) child = undefined;
        resolve();
      });
    });
    const gone = exited.then(() => {
      throw new Error(`redis-server exited before it answered on port ${port}:\n${output}`);
    });
    failedToSpawn.catch(() => {});
    gone.catch(() => {});
    await Promise.race([waitForPong(port, READY_TIMEOUT_MS), failedToSpawn, gone]);
  };

  const signal = (name: NodeJS.Signals) => {
    if (!child) throw new Error(`redis-server on port ${port} is not running`);
    child.kill(name);
  };

  const stop = async (): Promise<void> => {
    const running = child;
    if (!running) return;
    // A frozen process would not act on SIGTERM.
    running.kill('SIGCONT');
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    get isRunning() {
      return child !== undefined;
    },
    start,
    stop,
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    async close() {
      await stop();
      process.off('exit', killOnExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Sends PING until "+PONG" (or "-NOAUTH", which also means it serves) comes back. */
async function waitForPong(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await answersPing(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`redis-server did not answer PING on port ${port} within ${timeoutMs} ms`);
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let reply = '';
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
  });
}
