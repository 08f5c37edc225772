import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { SHOP } from './relay-harness.js';

/**
 * Relays as real processes (`relay/src/cli.ts` from source through tsx) and browsers asking them
 * over real HTTP: the fleet tests' parts.
 */

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

export interface RelayInstance {
  readonly url: string;
  readonly process: RelayProcess;
}

export interface RelayProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  out(): string;
  err(): string;
}

/** What one browser saw. */
export interface Seen {
  readonly instance: number;
  readonly status: number;
  /** The body's `currentVisitors` for a report, else undefined. */
  readonly visitors: number | undefined;
  readonly error: unknown;
  readonly age: number | null;
  readonly retryAfter: string | null;
  /** The report's own `timestamp` (the service's clock when it answered), in ms; NaN for no report. */
  readonly reportedAtMs: number;
  /** When the answer was complete, by this process's clock. */
  readonly atMs: number;
  /** How long the answer took, from sending to complete: what a busy machine adds to any delay seen. */
  readonly tookMs: number;
}

export interface LaunchOptions {
  /** Moves the process's clocks this far (support/skewed-clock.ts), as on a machine whose clock is wrong. */
  readonly clockSkewMs?: number;
}

/**
 * `relay/src/cli.ts --port 0 --config <file>` from source through tsx, as one process: `node
 * --import tsx`, not the `tsx` command, whose wrapper process would take the SIGKILL and leave the
 * relay itself running.
 */
export function launchRelay(configPath: string, options: LaunchOptions = {}): RelayProcess {
  const skew = options.clockSkewMs ? ['--import', join(process.cwd(), 'relay/test/support/skewed-clock.ts')] : [];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...skew, join(process.cwd(), 'relay/src/cli.ts'), '--port', '0', '--config', configPath],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RELAY_TEST_CLOCK_SKEW_MS: String(options.clockSkewMs ?? 0) },
    },
  );
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited, out: () => out, err: () => err };
}

/** Starts a relay process and reads the URL it prints. */
export async function startInstance(configPath: string, options: LaunchOptions = {}): Promise<RelayInstance> {
  const started = launchRelay(configPath, options);
  const deadline = Date.now() + 30_000;
  let exitCode: number | null | undefined;
  started.exited.then(() => {
    exitCode = started.child.exitCode;
  });
  while (!LISTENING.test(started.out())) {
    if (exitCode !== undefined || Date.now() > deadline) {
      started.child.kill('SIGKILL');
      throw new Error(`relay did not start (exit ${exitCode}):\n${started.out()}\n${started.err()}`);
    }
    await sleep(25);
  }
  return { url: LISTENING.exec(started.out())![1]!, process: started };
}

/** SIGTERM, and SIGKILL when it has not exited in 8 s. */
export async function stopInstance(instance: RelayInstance): Promise<void> {
  const { child, exited } = instance.process;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 8_000);
  await exited;
  clearTimeout(timer);
}

export const isRunning = (instance: RelayInstance) =>
  instance.process.child.exitCode === null && instance.process.child.signalCode === null;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One browser asking one instance; a network failure is recorded as status 0, never thrown. */
export async function ask(instances: readonly RelayInstance[], index: number): Promise<Seen> {
  const sentAtMs = Date.now();
  try {
    // A limit for a relay that never answers (that fails the test as status 0), not a speed requirement.
    const response = await fetch(`${instances[index]!.url}/api/v1/realtime?websiteId=${SHOP.id}`, { signal: AbortSignal.timeout(60_000) });
    const json = (await response.json()) as { currentVisitors?: unknown; error?: unknown; timestamp?: unknown };
    const age = response.headers.get('age');
    return {
      instance: index,
      status: response.status,
      visitors: typeof json.currentVisitors === 'number' ? json.currentVisitors : undefined,
      error: json.error,
      age: age === null ? null : Number(age),
      retryAfter: response.headers.get('retry-after'),
      reportedAtMs: typeof json.timestamp === 'string' ? Date.parse(json.timestamp) : Number.NaN,
      atMs: Date.now(),
      tookMs: Date.now() - sentAtMs,
    };
  } catch (error) {
    return {
      instance: index,
      status: 0,
      visitors: undefined,
      error,
      age: null,
      retryAfter: null,
      reportedAtMs: Number.NaN,
      atMs: Date.now(),
      tookMs: Date.now() - sentAtMs,
    };
  }
}

/** Browsers keep asking every instance, one after another per instance, until `forMs` is over. */
export async function keepAsking(instances: readonly RelayInstance[], forMs: number, seen: Seen[] = [], pauseMs = 25): Promise<Seen[]> {
  const untilMs = Date.now() + forMs;
  await Promise.all(
    instances.map(async (_, index) => {
      while (Date.now() < untilMs) {
        seen.push(await ask(instances, index));
        await sleep(pauseMs);
      }
    }),
  );
  return seen;
}

/**
 * The slowest answer seen, in ms: a change shows in the first answer sent after it is due, so a
 * delay bound adds this measured time to its slack rather than a fixed allowance for a busy machine.
 */
export function slowestAnswerMs(seen: readonly Seen[]): number {
  return Math.max(0, ...seen.map((each) => each.tookMs));
}

/** Each instance's first answer showing `visitors` at or after `sinceMs`, and whether it never went back. */
export function firstShowing(seen: readonly Seen[], instances: number, visitors: number, sinceMs: number) {
  return Array.from({ length: instances }, (_, index) => {
    const after = seen.filter((each) => each.instance === index && each.atMs >= sinceMs);
    const first = after.findIndex((each) => each.visitors === visitors);
    return {
      instance: index,
      delayMs: first === -1 ? Number.POSITIVE_INFINITY : after[first]!.atMs - sinceMs,
      wentBack: first !== -1 && after.slice(first).some((each) => each.visitors !== visitors),
    };
  });
}
