import { CommandLineError, parseFlags, wholeNumberFlag } from '../command-line.js';

export const USAGE = `Usage: live-visitors-relay --port <n> --config <file>

  --port <n>       port to listen on at 127.0.0.1 (0 picks a free one)
  --config <file>  JSON { "upstream", "websites": [ { "id", "token" } ], "allowOrigins",
                   "interval", "maxStale", "hourlyBudget" }; LIVE_VISITORS_* variables override it
  -h, --help       show this help`;

export interface RelayCliArguments {
  readonly port: number;
  readonly configPath: string;
  readonly help: boolean;
}

export { CommandLineError as RelayUsageError } from '../command-line.js';

export function parseRelayArguments(argv: readonly string[]): RelayCliArguments {
  const values = parseFlags(argv, {
    port: { type: 'string' },
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return { port: 0, configPath: '', help: true };
  if (values.port === undefined) throw new CommandLineError('--port is required');
  if (values.config === undefined) throw new CommandLineError('--config is required');
  if (values.config === '') throw new CommandLineError('--config needs a file path');
  return { port: wholeNumberFlag('--port', values.port, 65_535), configPath: values.config, help: false };
}
