import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmulatorConfig, startEmulatorServer } from '../../../emulator/src/index.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

type Emulator = Awaited<ReturnType<typeof startEmulatorServer>>;

/**
 * What the registration-store tests read back byte for byte: a real Redis, the emulator as the
 * service (on the test's clock, controls on), and a fresh folder for the file store.
 */
export function startRegistrationBackends(
  config: EmulatorConfig,
  now: () => number,
  folderPrefix: string,
): Promise<[RedisServer, Emulator, string]> {
  return Promise.all([
    startRedisServer(),
    startEmulatorServer({ port: 0, controls: true, config, now, onError: () => undefined }),
    mkdtemp(join(tmpdir(), folderPrefix)),
  ]);
}

/** Stops what startRegistrationBackends started; any of them may be missing when it failed part way. */
export async function closeRegistrationBackends(redis?: RedisServer, emulator?: Emulator, folder?: string): Promise<void> {
  await Promise.all([redis?.close(), emulator?.close(), folder && rm(folder, { recursive: true, force: true })]);
}
