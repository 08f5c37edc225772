import { CommandLineError, parseFlags, type ServerCommand, wholeNumberFlag } from '../../server-kit/command.js';
import { REALTIME_PATH } from '../../src/contract/request.js';
import type { RelayConfig } from './config.js';
import { relayConfigWarnings } from './config-warnings.js';
import { DEFAULT_WEBSITE_HOURLY_BUDGET } from './registry/registration-record.js';
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
    return { server, banner: describeRelay(server.url, config, server.registeredAtStart), warnings: relayConfigWarnings(config) };
  },
  stopping: 'finishing answers in flight…',
  stopped: 'Relay stopped.',
};

/** The store without the credentials a Redis URL may hold. */
function describeStore({ store, storePrefix }: RelayConfig): string {
  if (store === 'memory') return 'memory (one instance; a fleet needs a shared store)';
  return `${parseRedisUrl(store).label}, keys under "${storePrefix}", shared by the fleet`;
}

/** Where it listens and what it relays (website ids, never their tokens), and what it may spend. */
export function describeRelay(url: string, config: RelayConfig, registeredAtStart: number | null): string {
  return [
    `live-visitors relay listening on ${url}`,
    `  GET ${url}${REALTIME_PATH}?websiteId=<id>`,
    `Upstream: ${config.upstream}`,
    `Websites: ${config.websites.map((website) => website.id).join(', ') || 'none in the config'}`,
    ...(config.selfServe
      ? [
          `Registered websites: ${registeredAtStart ?? 0} found in ${describeRegistrations(config)}; ` +
            `owners register theirs at ${url}/ (at most ${config.maxWebsites})`,
        ]
      : []),
    `Allowed origins: ${describeOrigins(config)}`,
    `Store: ${describeStore(config)}`,
    `One upstream request per website every ${config.interval} s; last good answer served up to ${config.maxStale} s.`,
    `Budget: at most ${config.hourlyBudget} upstream requests an hour for the whole relay${config.store === 'memory' ? '' : ' (the fleet together)'}; ${describeWebsiteBudget(config)}.`,
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

/** The config's origins are for the config's websites; a registered website answers the origins its owner chose. */
function describeOrigins(config: RelayConfig): string {
  const own = config.allowOrigins.length === 0 ? 'none (same-origin pages only)' : config.allowOrigins.join(', ');
  if (!config.selfServe) return own;
  const forConfig = config.websites.length === 0 ? '' : `${own} for the config's websites; `;
  return `${forConfig}each registered website answers the origins its owner chose (any origin when the owner chose none)`;
}

/** What one website may take of the budget: one request an interval, and a registered one its owner's hourly budget too. */
function describeWebsiteBudget(config: RelayConfig): string {
  const perInterval = Math.ceil(3_600 / config.interval);
  const one = `a website takes at most one every ${config.interval} s (${perInterval} an hour)`;
  if (!config.selfServe) return one;
  return `${one}, and a registered website no more than its owner's hourly budget (${DEFAULT_WEBSITE_HOURLY_BUDGET} unless the owner set another)`;
}

/** Where registrations are kept, in the operator's words. */
function describeRegistrations(config: RelayConfig): string {
  if (config.registrationsFile !== null) return `the file ${config.registrationsFile}`;
  if (config.store !== 'memory') return 'the shared store';
  return 'memory (lost on a restart)';
}
