import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Runs one of the package's commands from source in one Node process (tsx as its loader),
 * collecting what it prints. Not through the `tsx` bin: that is a second process which, on
 * SIGTERM, kills the command with SIGKILL and exits 143 when it does not hear back within
 * 30 ms, as a busy machine makes it, so a signal would test tsx rather than the command.
 */
export function launchCommand(source: string, args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(process.cwd(), source), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => out, err: () => err };
}
