// @vitest-environment node
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorServer } from '../../emulator/src/index.js';
import { type CommandIo, CommandLineError, runServerCommand } from '../../server-kit/command.js';
import { launchCommand } from '../../test/support/command-process.js';
import { takenPort } from '../../test/support/network.js';
import { parseRelayArguments, relayCommand } from '../src/command.js';
import { EMULATOR_CONFIG, eventually, leakedTokens, OTHER_SHOP, SHOP } from './support/relay-harness.js';

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
let folder: string;
let configPath: string;
beforeAll(async () => {
  emulator = await startEmulatorServer({ port: 0, config: EMULATOR_CONFIG });
  folder = await mkdtemp(join(tmpdir(), 'relay-cli-'));
  configPath = join(folder, 'relay.json');
  await writeFile(
    configPath,
    JSON.stringify({ upstream: emulator.url, websites: [SHOP, OTHER_SHOP], allowOrigins: ['https://shop.example'] }),
  );
});
afterAll(async () => {
  await emulator.close();
  await rm(folder, { recursive: true, force: true });
});

/** Runs the command in-process, with its output captured and its stop signal in the test's hands. */
function runInProcess(argv: string[], env: Record<string, string> = {}) {
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
    env,
    onStopSignal(handler) {
      stop = handler;
      return () => {
        stop = undefined;
      };
    },
  };
  const exit = runServerCommand(relayCommand, argv, io);
  return { exit, out: () => out, err: () => err, signal: (name: string) => stop?.(name), isWaiting: () => stop !== undefined };
}

describe('parseRelayArguments', () => {
  it('reads exactly --port and --config', () => {
    expect(parseRelayArguments(['--port', '8788', '--config', 'relay.json'])).toEqual({ port: 8788, configPath: 'relay.json' });
    expect(parseRelayArguments(['--config=relay.json', '--port=0'])).toEqual({ port: 0, configPath: 'relay.json' });
  });

  it('asks for nothing else with --help', () => {
    expect(parseRelayArguments(['--help'])).toBe('help');
    expect(parseRelayArguments(['-h', '--port', 'x'])).toBe('help');
  });

  it.each([
    [[], '--port is required'],
    [['--port', '1'], '--config is required'],
    [['--port', '1', '--config', ''], '--config needs a file path'],
    [['--port', 'http', '--config', 'x'], '--port must be a whole number from 0 to 65535 (got "http")'],
    [['--port', '65536', '--config', 'x'], '--port must be a whole number from 0 to 65535 (got "65536")'],
    [['--port', '1', '--config'], "Option '--config <value>' argument missing"],
    [['--port', '1', '--config', 'x', '--verbose'], "Unknown option '--verbose'"],
    [['--port', '1', '--config', 'x', 'extra'], "Unexpected argument 'extra'"],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => parseRelayArguments(argv)).toThrow(CommandLineError);
    expect(() => parseRelayArguments(argv)).toThrow(message);
  });
});

describe('the relay command, run in-process', () => {
  it('serves on 127.0.0.1, prints where and which websites (never a token), relays, and stops cleanly on a signal', async () => {
    const run = runInProcess(['--port', '0', '--config', configPath]);
    await eventually(run.isWaiting);
    const url = LISTENING.exec(run.out())?.[1];
    expect(url).toBeDefined();
    expect(run.out()).toContain(`Upstream: ${emulator.url}`);
    expect(run.out()).toContain('Websites: shop-a, shop-b');
    expect(run.out()).toContain('Allowed origins: https://shop.example');
    expect(run.out()).toContain('One upstream request per website every 60 s');

    const answer = await fetch(`${url}/api/v1/realtime?websiteId=${SHOP.id}`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ websiteId: SHOP.id, currentVisitors: 0 });

    run.signal('SIGINT');
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain('SIGINT received, finishing answers in flight…');
    expect(run.out()).toContain('Relay stopped.');
    await expect(fetch(`${url}/api/v1/realtime`)).rejects.toThrow();
    expect(leakedTokens(run.out() + run.err())).toEqual([]);
  });

  it('applies LIVE_VISITORS_* overrides and prints warnings about the plan arithmetic', async () => {
    const run = runInProcess(['--port', '0', '--config', configPath], { LIVE_VISITORS_INTERVAL: '20', LIVE_VISITORS_HOURLY_BUDGET: '100' });
    await eventually(run.isWaiting);
    expect(run.out()).toContain('One upstream request per website every 20 s');
    expect(run.err()).toContain('warning: 2 website(s) refreshed every 20 s need up to 360 upstream requests an hour');
    run.signal('SIGTERM');
    expect(await run.exit).toBe(0);
  });

  it('exits 2 with the reason and the usage on a bad flag', async () => {
    const run = runInProcess(['--port', '0']);
    expect(await run.exit).toBe(2);
    expect(run.err()).toContain('error: --config is required');
    expect(run.err()).toContain('Usage: live-visitors-relay --port <n> --config <file>');
  });

  it('exits 2 naming the file and field of a bad config, without its token', async () => {
    const path = join(folder, 'bad.json');
    await writeFile(path, JSON.stringify({ upstream: emulator.url, websites: [{ id: SHOP.id, token: `${SHOP.token} ` }], interval: 5.5 }));
    const run = runInProcess(['--port', '0', '--config', path]);
    expect(await run.exit).toBe(2);
    expect(run.err()).toContain(`Invalid relay config (${path})`);
    expect(run.err()).toContain('websites[0].token may only contain letters');
    expect(run.err()).toContain('interval must be a whole number of seconds');
    expect(leakedTokens(run.err())).toEqual([]);
  });

  it('exits 1 when the port is taken', async () => {
    const { port, release } = await takenPort();
    try {
      const run = runInProcess(['--port', String(port), '--config', configPath]);
      expect(await run.exit).toBe(1);
      expect(run.err()).toMatch(/^error: could not start: .*EADDRINUSE/);
    } finally {
      release();
    }
  });

  it('prints the usage and exits 0 on --help', async () => {
    const run = runInProcess(['--help']);
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain('LIVE_VISITORS_* variables override it');
  });
});

describe('live-visitors-relay (the real process)', () => {
  const launch = (args: string[]) => launchCommand('relay/src/cli.ts', args);

  it('serves, relays one request, and exits 0 on SIGTERM', async () => {
    const run = launch(['--port', '0', '--config', configPath]);
    try {
      await eventually(() => LISTENING.test(run.out()));
      const url = LISTENING.exec(run.out())?.[1];
      const answer = await fetch(`${url}/api/v1/realtime?websiteId=${SHOP.id}`);
      expect(answer.status).toBe(200);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      expect(run.out()).toContain('Relay stopped.');
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('exits 2 on a bad flag', async () => {
    const run = launch(['--port', '0']);
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('error: --config is required');
  });
});
