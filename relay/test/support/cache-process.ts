import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../test/support/network.js';

const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

/** A real HTTP cache (nginx, Varnish) running in front of a relay, on a loopback port of its own. */
export interface CacheServer {
  /** Origin without trailing slash, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** Its own temporary folder: config, logs, cache files, work files. */
  readonly dir: string;
  /** The last lines the process wrote, for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process has exited and its folder is gone. */
  stop(): Promise<void>;
}

export interface CacheProcessOptions {
  readonly name: string;
  /** Absolute path of the binary; missing, the start fails with `installHint`. */
  readonly binary: string;
  readonly installHint: string;
  /** Files to write into the folder before starting, by name. */
  files(dir: string, port: number): Record<string, string>;
  args(dir: string, port: number): string[];
}

/**
 * Starts the binary in the foreground with everything in a fresh temporary folder, and resolves
 * once it answers HTTP on its port (any status will do: it is the cache that must answer, not the relay).
 */
export async function startCacheProcess(options: CacheProcessOptions): Promise<CacheServer> {
  try {
    accessSync(options.binary, constants.X_OK);
  } catch {
    throw new Error(`${options.binary} is missing: ${options.installHint}`);
  }
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), `relay-${options.name}-`));
  // Workers that drop privileges (nginx's, as root) must still reach their cache and temp files.
  await chmod(dir, 0o755);
  for (const [name, text] of Object.entries(options.files(dir, port))) await writeFile(join(dir, name), text);

  const child = spawn(options.binary, options.args(dir, port), { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = `${output}${chunk.toString()}`.slice(-4_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  // A test runner that dies must not leave a cache behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await terminate(child, exited);
    process.off('exit', killOnExit);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilAnswering(url, exited, options.name, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, dir, output: () => output, stop };
}

async function waitUntilAnswering(url: string, exited: Promise<void>, name: string, output: () => string): Promise<void> {
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited) throw new Error(`${name} exited before it answered on ${url}:\n${output()}`);
    try {
      await (await fetch(`${url}/`, { signal: AbortSignal.timeout(1_000) })).arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${name} did not answer on ${url} within ${READY_TIMEOUT_MS} ms:\n${output()}`);
}

async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
