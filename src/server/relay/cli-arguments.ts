import { parseArgs } from 'node:util';

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

/** A mistake in the command line: the command prints it with the usage and exits with 2. */
export class RelayUsageError extends Error {
  override name = 'RelayUsageError';
}

export function parseRelayArguments(argv: readonly string[]): RelayCliArguments {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new RelayUsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return { port: 0, configPath: '', help: true };
  if (values.port === undefined) throw new RelayUsageError('--port is required');
  if (values.config === undefined) throw new RelayUsageError('--config is required');
  if (values.config === '') throw new RelayUsageError('--config needs a file path');
  const port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN;
  if (!(port <= 65_535)) throw new RelayUsageError(`--port must be a whole number from 0 to 65535 (got "${values.port}")`);
  return { port, configPath: values.config, help: false };
}
