import { CommandLineError, parseFlags, wholeNumberFlag } from '../command-line.js';
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

export { CommandLineError as CliUsageError } from '../command-line.js';

export function parseCliArguments(argv: readonly string[]): CliArguments {
  const values = parseFlags(argv, {
    port: { type: 'string' },
    config: { type: 'string' },
    simulate: { type: 'string' },
    'no-controls': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return { port: 0, configPath: undefined, simulate: undefined, controls: true, help: true };
  if (values.port === undefined) throw new CommandLineError('--port is required');
  if (values.config === '') throw new CommandLineError('--config needs a file path');
  return {
    port: wholeNumberFlag('--port', values.port, 65_535),
    configPath: values.config,
    simulate: values.simulate === undefined ? undefined : wholeNumberFlag('--simulate', values.simulate, MAX_SIMULATED_VISITORS),
    controls: !values['no-controls'],
    help: false,
  };
}
