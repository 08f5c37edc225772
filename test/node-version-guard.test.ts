// @vitest-environment node
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { shellEnvironment } from './support/shell-environment.js';

/**
 * On a Node older than `engines`, `npm start`, `npm test` and `live-visitors-relay` stop at once
 * with one line naming the version needed (relay/bin/require-node.js), run here under an older
 * Node of this machine: LIVE_VISITORS_OLDER_NODE (.ci/run sets it to the machine's own Node when it
 * installs a newer one), else the first `node` on PATH that is older.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const engines = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
const oldestMajor = Number(/\d+/.exec(engines)?.[0]);

function olderNode(): { path: string; version: string } | undefined {
  const candidates = [
    process.env.LIVE_VISITORS_OLDER_NODE,
    ...(process.env.PATH ?? '').split(delimiter).map((folder) => join(folder, 'node')),
  ];
  for (const path of candidates) {
    if (!path || !existsSync(path) || realpathSync(path) === realpathSync(process.execPath)) continue;
    const version = execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    if (Number(version.split('.')[0]) < oldestMajor) return { path, version };
  }
  return undefined;
}

const older = olderNode();

/** Runs a command with the older Node first on PATH, in a shell's environment; killed, with its group, if it does not stop. */
function runUnder(node: string, command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...shellEnvironment(), PATH: `${dirname(node)}${delimiter}${process.env.PATH}` },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Not a bound on the guard's speed: a missing guard would start the demo server, which never stops by itself.
  const stop = setTimeout(() => process.kill(-(child.pid ?? 0), 'SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(stop);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe.skipIf(!older)(`on ${older ? `Node ${older.version}` : 'an older Node (none on this machine)'}`, () => {
  const line = `live-visitors needs Node ${engines}; this is Node ${older?.version}.`;

  it.each([
    ['the guard itself', older?.path ?? '', ['relay/bin/require-node.js']],
    ['live-visitors-relay', older?.path ?? '', ['relay/bin/live-visitors-relay.js', '--port', '0', '--config', 'relay.json']],
    ['npm start', 'npm', ['start']],
    ['npm test', 'npm', ['test']],
  ])('%s stops at once with one line naming the version needed, no stack trace', async (_name, command, args) => {
    const { code, stdout, stderr } = await runUnder(older?.path ?? '', command, args);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([line]);
    // npm shows the script it runs, nothing else.
    expect(stdout.split('\n').filter((text) => text && !text.startsWith('> '))).toEqual([]);
  });
});

it('on this Node the guard lets everything through, silently', () => {
  expect(execFileSync(process.execPath, [join(root, 'relay/bin/require-node.js')], { encoding: 'utf8', stdio: 'pipe' })).toBe('');
});

it('the three packages name the same Node lines, so one guard serves them', () => {
  for (const folder of ['relay', 'emulator']) {
    expect((JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node).toBe(
      engines,
    );
  }
});
