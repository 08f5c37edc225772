import { type CommandIo, CommandLineError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, parseFlags } from '../../server-kit/command.js';
import { ConfigError } from '../../server-kit/config-checks.js';
import { createRegistrationStore } from './registry/create-registration-store.js';
import { rotateKeys } from './registry/rotate-keys.js';
import { loadRelayConfig } from './server.js';

export const ROTATE_KEYS_USAGE = `Usage: live-visitors-relay rotate-keys --config <file>

  Re-encrypts every registered website's token under the first key of encryptionKeys
  (or LIVE_VISITORS_ENCRYPTION_KEYS), in the store the config names (Redis, or
  registrationsFile), and seals records of the first format whole. Afterwards the
  older keys can be removed from the config. Safe to run while relays serve (a
  registration changed meanwhile keeps that change), and to run twice.`;

/** `live-visitors-relay rotate-keys --config <file>`: 0 done, 2 a bad command line or config, 1 the store failed. */
export async function runRotateKeys(argv: readonly string[], io: Pick<CommandIo, 'stdout' | 'stderr' | 'env'>): Promise<number> {
  try {
    const values = parseFlags(argv, { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
    if (values.help) {
      io.stdout(`${ROTATE_KEYS_USAGE}\n`);
      return EXIT_OK;
    }
    if (!values.config) throw new CommandLineError('--config is required');
    const config = await loadRelayConfig(values.config, io.env);
    if (!config.selfServe) throw new CommandLineError('the config does not set selfServe: it has no registrations to re-encrypt');
    const store = await createRegistrationStore(config, (line) => io.stderr(`${line}\n`));
    if (!store) throw new CommandLineError('the config keeps registrations in memory: there is nothing stored to re-encrypt');
    try {
      const report = await rotateKeys(config, store);
      const keyId = config.encryptionKeys[0]!.split(':')[0];
      io.stdout(`Re-encrypted ${report.reencrypted} registration(s) under key "${keyId}"; ${report.current} already were.\n`);
      if (report.changed.length > 0) {
        io.stdout(
          `${report.changed.length} registration(s) were replaced or removed while this ran and were left as that made them; run it again to re-encrypt any written under an older key: ${report.changed.join(', ')}\n`,
        );
      }
      if (report.unreadable.length > 0) {
        io.stderr(
          `warning: ${report.unreadable.length} registration(s) no key decrypts, left as they were (their owners must register again): ${report.unreadable.join(', ')}\n`,
        );
      }
      return EXIT_OK;
    } finally {
      await store.close();
    }
  } catch (error) {
    if (error instanceof CommandLineError) {
      io.stderr(`error: ${error.message}\n\n${ROTATE_KEYS_USAGE}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof ConfigError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    io.stderr(`error: could not re-encrypt: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }
}
