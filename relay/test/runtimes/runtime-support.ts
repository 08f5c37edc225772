import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The repository's root; every path below is absolute. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const TEMPLATES = join(ROOT, 'relay/templates');
export const BIN = join(ROOT, 'node_modules/.bin');

/** A relay running on some runtime, reached over loopback HTTP. */
export interface RelayUnderTest {
  /** Origin without trailing slash; the relay answers `${url}/api/v1/realtime`. */
  readonly url: string;
  /** Everything the runtime printed so far, stdout and stderr together. */
  output(): string;
  stop(): Promise<void>;
}

/** What the relay's config is made of on every runtime: the platform's environment variables. */
export type RelayEnvironment = Readonly<Record<string, string>>;

const STARTUP_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;
const BUILD_TIMEOUT_MS = 120_000;

/**
 * Starts a runtime's process in its own process group and resolves once it prints the loopback
 * URL it listens on. Nothing of the test's environment leaks in but PATH and HOME.
 */
export async function startRelayProcess(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: RelayEnvironment },
): Promise<RelayUnderTest> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let listening = false;
    const timer = setTimeout(() => fail(`printed no loopback URL within ${STARTUP_TIMEOUT_MS / 1000} s`), STARTUP_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const found = listening ? null : /http:\/\/127\.0\.0\.1:\d+/.exec(output);
      if (found) {
        listening = true;
        clearTimeout(timer);
        resolve(found[0]);
      }
    };
    function fail(reason: string) {
      if (listening) return;
      clearTimeout(timer);
      stopGroup(child, 'SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} ${reason}; it printed:\n${output}`));
    }
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('error', (error) => fail(`could not start (${error.message})`));
    child.once('exit', (code, signal) => fail(`exited (${signal ?? code})`));
  });
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopGroup(child, 'SIGTERM');
      const killer = setTimeout(() => stopGroup(child, 'SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(killer);
    },
  };
}

function stopGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    // The whole group: a runtime may have started helpers of its own.
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Bundles a template as its platform's build would (both wrangler and Vercel use esbuild): one
 * file, the package resolved from node_modules with the platform's export conditions.
 */
export async function bundleTemplate(
  entry: string,
  options: { readonly format: 'esm' | 'iife'; readonly conditions: string[]; readonly globalName?: string },
): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: options.format,
    globalName: options.globalName,
    platform: 'neutral',
    mainFields: ['browser', 'module', 'main'],
    conditions: options.conditions,
    external: ['cloudflare:*', 'node:*'],
    target: 'es2022',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** Every file the relay's build turns into dist, and what its exports point at. */
const RELAY_SOURCES = ['relay/src', 'relay/tsdown.config.ts', 'relay/package.json', 'server-kit', 'src/contract', 'src/realtime'];
const RELAY_OUTPUTS = ['relay/dist/index.js', 'relay/dist/node.js', 'relay/dist/cloudflare.js', 'relay/dist/cli.js'];
/** Shared by the test files that run in parallel, so one builds and the others wait for it. */
const BUILD_LOCK = join(ROOT, 'node_modules/.cache/relay-runtimes-build.lock');

/**
 * The templates import the package as a shop would, so they run dist: builds it (once, whichever
 * test file comes first) when it is missing or older than a source.
 */
export async function ensureRelayBuilt(): Promise<void> {
  const wanted = RELAY_OUTPUTS.map((output) => join(ROOT, output));
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  while (isStale(wanted)) {
    if (takeLock()) {
      try {
        if (isStale(wanted)) await runBuild();
      } finally {
        rmSync(BUILD_LOCK, { recursive: true, force: true });
      }
      return;
    }
    if (Date.now() > deadline) throw new Error(`the relay's build did not finish within ${BUILD_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function isStale(outputs: readonly string[]): boolean {
  if (!outputs.every((output) => existsSync(output))) return true;
  const built = Math.min(...outputs.map((output) => statSync(output).mtimeMs));
  return RELAY_SOURCES.some((source) => newestChange(join(ROOT, source)) > built);
}

function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

function takeLock(): boolean {
  mkdirSync(dirname(BUILD_LOCK), { recursive: true });
  try {
    mkdirSync(BUILD_LOCK);
    return true;
  } catch {
    // A lock left by a build that died is older than any build takes.
    const lock = statSync(BUILD_LOCK, { throwIfNoEntry: false });
    if (lock && Date.now() - lock.mtimeMs > BUILD_TIMEOUT_MS) {
      rmSync(BUILD_LOCK, { recursive: true, force: true });
    }
    return false;
  }
}

async function runBuild(): Promise<void> {
  const child = spawn('npm', ['run', 'build', '-w', 'live-visitors-relay'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const read = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`npm run build -w live-visitors-relay failed (${code}):\n${output}`);
}
