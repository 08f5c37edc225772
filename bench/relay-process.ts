// A relay as a separate process for the scale bench: started from source with its config in a file,
// asked for its memory and CPU through bench/process-memory-reporter.ts, stopped by its own id.

import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;
const REPORT = /bench-process (\{[^\n]*\})\n/g;
/** Every wait on the process is bounded: a relay that never listens or never reports is said so, not waited on. */
const START_BOUND_MS = 60_000;
const REPORT_BOUND_MS = 10_000;

export interface ProcessReport {
  readonly rss: number;
  readonly heapUsed: number;
  /** User and system CPU time since the process started. */
  readonly cpuMicros: number;
}

export interface RelayProcess {
  readonly url: string;
  /** ms from the spawn to the "listening" line. */
  readonly listenedAfterMs: number;
  report(): Promise<ProcessReport>;
  stop(): Promise<void>;
}

/** Writes the config beside `directory` and starts `relay/src/cli.ts` on a free loopback port. */
export async function startRelayProcess(directory: string, name: string, config: Record<string, unknown>): Promise<RelayProcess> {
  const configPath = join(directory, `${name}.json`);
  await writeFile(configPath, JSON.stringify(config));
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      '--import',
      join(process.cwd(), 'bench/process-memory-reporter.ts'),
      join(process.cwd(), 'relay/src/cli.ts'),
      '--port',
      '0',
      '--config',
      configPath,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let url: string | undefined;
  const deadline = started + START_BOUND_MS;
  while (url === undefined) {
    url = LISTENING.exec(out)?.[1];
    if (url !== undefined) break;
    if (child.exitCode !== null || performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the relay "${name}" did not listen within ${START_BOUND_MS / 1000} s:\n${out}\n${err.slice(-2_000)}`);
    }
    await sleep(10);
  }
  const listenedAfterMs = performance.now() - started;
  let reportsRead = 0;
  return {
    url,
    listenedAfterMs,
    async report() {
      const wanted = reportsRead + 1;
      child.kill('SIGUSR2');
      const until = performance.now() + REPORT_BOUND_MS;
      for (;;) {
        const reports = [...err.matchAll(REPORT)];
        if (reports.length >= wanted) {
          reportsRead = reports.length;
          return JSON.parse(reports.at(-1)![1]!) as ProcessReport;
        }
        if (performance.now() > until) throw new Error(`the relay "${name}" did not report its memory within ${REPORT_BOUND_MS / 1000} s`);
        await sleep(10);
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
