import { CommandLineError, parseFlags, type ServerCommand, wholeNumberFlag } from '../../server-kit/command.js';
import { REALTIME_PATH } from '../../src/contract/request.js';
import { PAGEVIEWS_PATH } from './app.js';
import { DEFAULT_EMULATOR_CONFIG, type EmulatorConfig, HOURLY_REQUEST_LIMITS, loadEmulatorConfig } from './config.js';
import { CONTROL_PATH_PREFIX } from './endpoints/control.js';
import { startEmulatorServer } from './server.js';
import { MAX_SIMULATED_VISITORS } from './traffic-simulator.js';

const USAGE = `Usage: npm run emulator -- --port <n> [--config <file>] [--simulate <visitors>] [--no-controls]

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

/** `npm run emulator -- --port <n> [--config <file>] [--simulate <visitors>] [--no-controls]`. */
export const emulatorCommand: ServerCommand = {
  usage: USAGE,
  async start(argv) {
    const args = parseCliArguments(argv);
    if (args.help) return 'help';
    const config = args.configPath === undefined ? DEFAULT_EMULATOR_CONFIG : await loadEmulatorConfig(args.configPath);
    const server = await startEmulatorServer({
      port: args.port,
      config,
      controls: args.controls,
      ...(args.simulate === undefined ? {} : { simulate: args.simulate }),
    });
    return { server, banner: describeServer(server.url, config, args.simulate, args.controls) };
  },
  stopping: 'stopping…',
  stopped: 'Emulator stopped.',
};

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

function describeServer(url: string, config: EmulatorConfig, simulate: number | undefined, controls: boolean): string {
  const idWidth = Math.max(...config.websites.map((site) => site.id.length));
  const tokenWidth = Math.max(...config.websites.map((site) => site.token.length));
  const sites = config.websites.map(
    (site) =>
      `  ${site.id.padEnd(idWidth)}  token ${site.token.padEnd(tokenWidth)}  plan ${site.plan} (${HOURLY_REQUEST_LIMITS[site.plan]} requests/hour)`,
  );
  return [
    `Realtime emulator listening on ${url}`,
    `  GET  ${url}${REALTIME_PATH}?websiteId=<id>   with Authorization: Bearer <token>`,
    `  POST ${url}${PAGEVIEWS_PATH}   {"websiteId", "visitorId", "timestamp"?}`,
    controls ? `  Control API: ${url}${CONTROL_PATH_PREFIX}/state` : '  Control API: off',
    'Websites:',
    ...sites,
    simulate === undefined
      ? 'Traffic simulator: off (start it with --simulate <visitors>)'
      : `Traffic simulator: on, about ${simulate} concurrent visitors per website`,
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}
