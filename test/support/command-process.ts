import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Runs one of the package's commands from source, as `npm run …` does, collecting what it prints. */
export function launchCommand(source: string, args: string[]) {
  const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
  const child = spawn(tsx, [join(process.cwd(), source), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => out, err: () => err };
}
