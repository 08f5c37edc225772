// @vitest-environment node
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorServer } from '../../emulator/src/index.js';
import { launchCommand } from '../../test/support/command-process.js';
import { eventually } from '../../test/support/network.js';
import { parseRelayConfig } from '../src/config.js';
import { FileRegistrationStore } from '../src/registry/file-registration-store.js';
import { createRelay } from '../src/relay.js';
import { runRotateKeys } from '../src/rotate-keys-command.js';

const OWNER = { id: 'cli-owner', token: 'tokCli-SECRET-5150' };
const OLD_KEY = `old:${btoa('o'.repeat(32))}`;
const NEW_KEY = `new:${btoa('n'.repeat(32))}`;

let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
let folder: string;
beforeAll(async () => {
  emulator = await startEmulatorServer({ port: 0, config: { websites: [{ ...OWNER, plan: 'enterprise' }] } });
  folder = await mkdtemp(join(tmpdir(), 'relay-rotate-'));
});
afterAll(async () => {
  await emulator.close();
  await rm(folder, { recursive: true, force: true });
});

function run(argv: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const io = {
    stdout(text: string) {
      out += text;
    },
    stderr(text: string) {
      err += text;
    },
    env,
  };
  return runRotateKeys(argv, io).then((code) => ({ code, out, err }));
}

describe('live-visitors-relay rotate-keys', () => {
  it('re-encrypts the file under the key the environment puts first, printing no token or key', async () => {
    const registrationsFile = join(folder, 'registrations.json');
    const configPath = join(folder, 'relay.json');
    const fields = { upstream: emulator.url, selfServe: true, encryptionKeys: [OLD_KEY], registrationsFile };
    await writeFile(configPath, JSON.stringify(fields));
    const relay = createRelay({
      config: parseRelayConfig(fields),
      registrationStore: await FileRegistrationStore.open(registrationsFile, () => {}),
    });
    await relay.registrations!.ready;
    const put = await relay(
      new Request(`http://relay.test/api/v1/websites/${OWNER.id}`, { method: 'PUT', headers: { Authorization: `Bearer ${OWNER.token}` } }),
    );
    expect(put.status).toBe(201);

    const rotated = await run(['--config', configPath], { LIVE_VISITORS_ENCRYPTION_KEYS: `${NEW_KEY},${OLD_KEY}` });
    expect(rotated).toMatchObject({ code: 0, err: '' });
    expect(rotated.out).toBe('Re-encrypted 1 registration(s) under key "new"; 0 already were.\n');
    const text = await readFile(registrationsFile, 'utf8');
    expect(JSON.parse(text).registrations[OWNER.id].token.keyId).toBe('new');
    for (const secret of [OWNER.token, NEW_KEY.slice(4), OLD_KEY.slice(4)]) expect(`${rotated.out}${text}`).not.toContain(secret);

    expect((await run(['--config', configPath], { LIVE_VISITORS_ENCRYPTION_KEYS: NEW_KEY })).out).toBe(
      'Re-encrypted 0 registration(s) under key "new"; 1 already were.\n',
    );
  });

  it('says what is wrong with exit code 2: no --config, a config without selfServe, one kept in memory', async () => {
    expect((await run([])).code).toBe(2);
    const plain = join(folder, 'plain.json');
    await writeFile(plain, JSON.stringify({ upstream: emulator.url, websites: [OWNER] }));
    expect(await run(['--config', plain])).toMatchObject({ code: 2, err: expect.stringContaining('does not set selfServe') });
    const memory = join(folder, 'memory.json');
    await writeFile(
      memory,
      JSON.stringify({ upstream: emulator.url, selfServe: true, encryptionKeys: [OLD_KEY], registrationsMayBeLost: true }),
    );
    expect(await run(['--config', memory])).toMatchObject({ code: 2, err: expect.stringContaining('in memory') });
  });

  it('the bin: a self-serving relay keeps a registration in its file across a stop and a start', async () => {
    const registrationsFile = join(folder, 'bin-registrations.json');
    const configPath = join(folder, 'bin.json');
    await writeFile(configPath, JSON.stringify({ upstream: emulator.url, selfServe: true, encryptionKeys: [OLD_KEY], registrationsFile }));
    const start = async () => {
      const run = launchCommand('relay/src/cli.ts', ['--port', '0', '--config', configPath]);
      await eventually(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.test(run.out()));
      return { run, url: /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.out())![1]! };
    };
    const first = await start();
    try {
      expect(first.run.out()).toContain(
        `Registered websites: 0 found in the file ${registrationsFile}; owners register theirs at ${first.url}/`,
      );
      const put = await fetch(`${first.url}/api/v1/websites/${OWNER.id}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${OWNER.token}` },
      });
      expect(put.status).toBe(201);
    } finally {
      first.run.child.kill('SIGTERM');
      expect(await first.run.exited).toBe(0);
    }
    const second = await start();
    try {
      // The restart says what it found before it serves it.
      expect(second.run.out()).toContain(`Registered websites: 1 found in the file ${registrationsFile}`);
      expect((await fetch(`${second.url}/api/v1/realtime?websiteId=${OWNER.id}`)).status).toBe(200);
      expect(`${first.run.out()}${first.run.err()}${second.run.out()}${second.run.err()}`).not.toContain(OWNER.token);
    } finally {
      second.run.child.kill('SIGTERM');
      await second.run.exited;
    }
  });
});
