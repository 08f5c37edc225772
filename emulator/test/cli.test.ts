// @vitest-environment node
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandIo, CommandLineError, runServerCommand } from '../../server-kit/command.js';
import { launchCommand } from '../../test/support/command-process.js';
import { takenPort } from '../../test/support/network.js';
import { emulatorCommand, parseCliArguments } from '../src/command.js';
import { eventually } from './support/test-server.js';

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

/** Runs the command in-process, with its output captured and its stop signal in the test's hands. */
function runInProcess(argv: string[]) {
  let out = '';
  let err = '';
  let stop: ((signal: string) => void) | undefined;
  const io: CommandIo = {
    stdout(text) {
      out += text;
    },
    stderr(text) {
      err += text;
    },
    onStopSignal(handler) {
      stop = handler;
      return () => (stop = undefined);
    },
    env: {},
  };
  const exit = runServerCommand(emulatorCommand, argv, io);
  return { exit, out: () => out, err: () => err, signal: (name: string) => stop?.(name), isWaiting: () => stop !== undefined };
}

describe('parseCliArguments', () => {
  it('reads port, config, simulate and no-controls', () => {
    expect(parseCliArguments(['--port', '8787', '--config', 'sites.json', '--simulate', '40', '--no-controls'])).toEqual({
      port: 8787,
      configPath: 'sites.json',
      simulate: 40,
      controls: false,
      help: false,
    });
    expect(parseCliArguments(['--port=0'])).toMatchObject({ port: 0, configPath: undefined, simulate: undefined, controls: true });
  });

  it.each([
    [[], '--port is required'],
    [['--port'], "Option '--port <value>' argument missing"],
    [['--port', 'abc'], '--port must be a whole number from 0 to 65535 (got "abc")'],
    [['--port', '-1'], /--port.* argument is ambiguous/],
    [['--port', '65536'], '--port must be a whole number from 0 to 65535 (got "65536")'],
    [['--port', '80.5'], '--port must be a whole number from 0 to 65535 (got "80.5")'],
    [['--port', '0', '--simulate', 'lots'], '--simulate must be a whole number from 0 to 10000 (got "lots")'],
    [['--port', '0', '--simulate', '10001'], '--simulate must be a whole number from 0 to 10000 (got "10001")'],
    [['--port', '0', '--config', ''], '--config needs a file path'],
    [['--port', '0', '--verbose'], "Unknown option '--verbose'"],
    [['--port', '0', 'extra'], "Unexpected argument 'extra'"],
  ])('refuses %j: %s', (argv, message: string | RegExp) => {
    expect(() => parseCliArguments(argv)).toThrow(CommandLineError);
    expect(() => parseCliArguments(argv)).toThrow(message);
  });
});

describe('the emulator command', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'emulator-cli-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('serves on 127.0.0.1, prints URL, sites, tokens and plans, and stops cleanly on a signal', async () => {
    const run = runInProcess(['--port', '0']);
    await eventually(run.isWaiting);
    const url = LISTENING.exec(run.out())?.[1];
    expect(url).toBeDefined();
    expect(run.out()).toMatch(/demo-shop\s+token demo-token\s+plan enterprise \(10000 requests\/hour\)/);
    expect(run.out()).toMatch(/small-shop\s+token small-shop-token\s+plan free \(100 requests\/hour\)/);
    expect(run.out()).toContain('Traffic simulator: off');
    expect(run.out()).toContain(`Control API: ${url}/__emulator/state`);

    const response = await fetch(`${url}/api/v1/realtime?websiteId=demo-shop`, { headers: { Authorization: 'Bearer demo-token' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ currentVisitors: 0, websiteId: 'demo-shop' });

    run.signal('SIGTERM');
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain('SIGTERM received, stopping…');
    await expect(fetch(`${url}/api/v1/realtime`)).rejects.toThrow();
  });

  it('uses the --config file, runs the simulator with --simulate, and hides controls with --no-controls', async () => {
    const path = join(folder, 'sites.json');
    await writeFile(path, JSON.stringify({ websites: [{ id: 'my-shop', token: 'my-token', plan: 'pro' }] }));
    const run = runInProcess(['--port', '0', '--config', path, '--simulate', '30', '--no-controls']);
    await eventually(run.isWaiting);
    const url = LISTENING.exec(run.out())?.[1];
    expect(run.out()).toMatch(/my-shop\s+token my-token\s+plan pro \(1000 requests\/hour\)/);
    expect(run.out()).toContain('Traffic simulator: on, about 30 concurrent visitors per website');
    expect(run.out()).toContain('Control API: off');
    expect((await fetch(`${url}/__emulator/state`)).status).toBe(404);
    const report = await fetch(`${url}/api/v1/realtime?websiteId=my-shop`, { headers: { Authorization: 'Bearer my-token' } });
    expect(report.status).toBe(200);
    run.signal('SIGINT');
    expect(await run.exit).toBe(0);
  });

  it('exits 2 with the reason and the usage on a bad flag', async () => {
    const run = runInProcess(['--port', 'abc']);
    expect(await run.exit).toBe(2);
    expect(run.err()).toContain('error: --port must be a whole number from 0 to 65535 (got "abc")');
    expect(run.err()).toContain('Usage: npm run emulator -- --port <n>');
  });

  it('exits 2 naming the file and field of a bad config', async () => {
    const path = join(folder, 'bad.json');
    await writeFile(path, JSON.stringify({ websites: [{ id: 'shop', token: 'shop-token', plan: 'gold' }] }));
    const run = runInProcess(['--port', '0', '--config', path]);
    expect(await run.exit).toBe(2);
    expect(run.err()).toContain(`Invalid emulator config (${path})`);
    expect(run.err()).toContain('websites[0].plan must be one of');
  });

  it('exits 1 when the port is taken', async () => {
    const { port, release } = await takenPort();
    try {
      const run = runInProcess(['--port', String(port)]);
      expect(await run.exit).toBe(1);
      expect(run.err()).toMatch(/error: could not start: .*EADDRINUSE/);
    } finally {
      release();
    }
  });

  it('prints the usage and exits 0 on --help', async () => {
    const run = runInProcess(['--help']);
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain('--simulate <visitors>');
  });
});

describe('npm run emulator (the real process)', () => {
  const launch = (args: string[]) => launchCommand('emulator/src/cli.ts', args);

  it('serves, answers one request, and exits 0 on SIGTERM', async () => {
    const run = launch(['--port', '0']);
    try {
      await eventually(() => LISTENING.test(run.out()));
      const url = LISTENING.exec(run.out())?.[1];
      const response = await fetch(`${url}/api/v1/realtime?websiteId=demo-shop`, { headers: { Authorization: 'Bearer demo-token' } });
      expect(response.status).toBe(200);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      expect(run.out()).toContain('Emulator stopped.');
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('exits 2 on a bad flag', async () => {
    const run = launch(['--port', '0', '--simulate']);
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain("error: Option '--simulate <value>' argument missing");
  });
});
