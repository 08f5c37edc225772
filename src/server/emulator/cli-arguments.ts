import { parseArgs } from 'node:util';
import { MAX_SIMULATED_VISITORS } from './input-limits.js';

export const USAGE = `Usage: npm run emulator -- --port <n> [--config <file>] [--simulate <visitors>] [--no-controls]

  --port <n>             port to listen on at 127.0.0.1 (0 picks a free one)
  --config <file>        JSON { "websites": [ { "id", "token", "plan" } ] }; built-in demo sites when absent
  --simulate <visitors>  run the traffic simulator around this many concurrent visitors per website
  --no-controls          do not serve the /__emulator/… control API
  -h, --help             show this help`;

export interface CliArguments {
  readonly port: number;
  readonly configPath: string | undefined;
  readonly simulate: number | undefined;
  readonly controls: boolean;
  readonly help: boolean;
}

/** A mistake in the command line: the command prints it with the usage and exits with 2. */
export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

export function parseCliArguments(argv: readonly string[]): CliArguments {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        config: { type: 'string' },
        simulate: { type: 'string' },
        'no-controls': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new CliUsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return { port: 0, configPath: undefined, simulate: undefined, controls: true, help: true };
  if (values.port === undefined) throw new CliUsageError('--port is required');
  if (values.config === '') throw new CliUsageError('--config needs a file path');
  return {
    port: wholeNumber('--port', values.port, 65_535),
    configPath: values.config,
    simulate: values.simulate === undefined ? undefined : wholeNumber('--simulate', values.simulate, MAX_SIMULATED_VISITORS),
    controls: !values['no-controls'],
    help: false,
  };
}

function wholeNumber(flag: string, text: string, max: number): number {
  const value = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value <= max)) throw new CliUsageError(`${flag} must be a whole number from 0 to ${max} (got "${text}")`);
  return value;
}
