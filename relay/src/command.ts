import { CommandLineError, parseFlags, type ServerCommand, wholeNumberFlag } from '../../server-kit/command.js';
import { REALTIME_PATH } from '../../src/contract/request.js';
import type { RelayConfig } from './config.js';
import { relayConfigWarnings } from './config-warnings.js';
import { loadRelayConfig, startRelayServer } from './server.js';
import { parseRedisUrl } from './store/redis-url.js';

const USAGE = `Usage: live-visitors-relay --port <n> --config <file>
       live-visitors-relay rotate-keys --config <file>

  --port <n>       port to listen on at 127.0.0.1 (0 picks a free one)
  --config <file>  JSON { "upstream", "websites": [ { "id", "token" } ], "allowOrigins",
                   "interval", "maxStale", "hourlyBudget", "store", "storePrefix",
                   "storeDownBudget", "selfServe", "encryptionKeys", "registrationsFile",
                   "registrationsPerHour", "maxWebsites" }; LIVE_VISITORS_* variables override it
  -h, --help       show this help
  rotate-keys      re-encrypt every registered website's token under the first encryption key`;

export interface RelayArguments {
  readonly port: number;
  readonly configPath: string;
}

/** `--port <n> --config <file>`, or 'help'; every mistake is a `CommandLineError`. */
export function parseRelayArguments(argv: readonly string[]): RelayArguments | 'help' {
  const values = parseFlags(argv, {
    port: { type: 'string' },
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  if (values.port === undefined) throw new CommandLineError('--port is required');
  if (values.config === undefined) throw new CommandLineError('--config is required');
  if (values.config === '') throw new CommandLineError('--config needs a file path');
  return { port: wholeNumberFlag('--port', values.port, 65_535), configPath: values.config };
}

/**
 * `live-visitors-relay --port <n> --config <file>`: exit code 2 for a bad command line or config,
 * 1 when the server cannot start, 0 after `--help` or a clean stop on SIGINT/SIGTERM.
 */
export const relayCommand: ServerCommand = {
  usage: USAGE,
  async start(argv, io) {
    const args = parseRelayArguments(argv);
    if (args === 'help') return 'help';
    const config = await loadRelayConfig(args.configPath, io.env);
    const server = await startRelayServer({ port: args.port, config, log: (line) => io.stderr(`${line}\n`) });
    return { server, banner: describeRelay(server.url, config), warnings: relayConfigWarnings(config) };
  },
  stopping: 'finishing answers in flight…',
  stopped: 'Relay stopped.',
};

/** The store without the credentials a Redis URL may hold. */
function describeStore({ store, storePrefix }: RelayConfig): string {
  if (store === 'memory') return 'memory (one instance; a fleet needs a shared store)';
  return `${parseRedisUrl(store).label}, keys under "${storePrefix}", shared by the fleet`;
}

/** Where it listens and what it relays: website ids, never their tokens. */
function describeRelay(url: string, config: RelayConfig): string {
  const origins = config.allowOrigins.length === 0 ? 'none (same-origin pages only)' : config.allowOrigins.join(', ');
  return [
    `live-visitors relay listening on ${url}`,
    `  GET ${url}${REALTIME_PATH}?websiteId=<id>`,
    `Upstream: ${config.upstream}`,
    `Websites: ${config.websites.map((website) => website.id).join(', ') || 'none in the config'}`,
    ...(config.selfServe ? [`Owners register theirs at ${url}/ (at most ${config.maxWebsites})`] : []),
    `Allowed origins: ${origins}`,
    `Store: ${describeStore(config)}`,
    `One upstream request per website every ${config.interval} s; last good answer served up to ${config.maxStale} s; ` +
      `at most ${config.hourlyBudget} upstream requests an hour.`,
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}
