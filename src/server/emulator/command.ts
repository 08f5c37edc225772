import { parseCliArguments, CliUsageError, USAGE } from './cli-arguments.js';
import { DEFAULT_EMULATOR_CONFIG, EmulatorConfigError, HOURLY_REQUEST_LIMITS, type EmulatorConfig } from './config.js';
import { CONTROL_PATH_PREFIX } from './control-endpoints.js';
import { loadEmulatorConfig } from './load-config.js';
import { startEmulatorServer, type EmulatorServer } from './server.js';

/** The process around the command, replaceable so tests run it in-process. */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Calls `handler` once on SIGINT or SIGTERM; returns the undo. */
  onStopSignal(handler: (signal: string) => void): () => void;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * `npm run emulator -- --port <n> [--config <file>] [--simulate <visitors>]`.
 * Resolves with the exit code: 2 for a bad command line or config, 1 when the
 * server cannot start, 0 after a clean stop on SIGINT/SIGTERM.
 */
export async function runEmulatorCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let server: EmulatorServer;
  let simulate: number | undefined;
  try {
    const args = parseCliArguments(argv);
    if (args.help) {
      io.stdout(`${USAGE}\n`);
      return EXIT_OK;
    }
    const config = args.configPath === undefined ? DEFAULT_EMULATOR_CONFIG : await loadEmulatorConfig(args.configPath);
    simulate = args.simulate;
    server = await startEmulatorServer({ port: args.port, config, controls: args.controls, ...(simulate === undefined ? {} : { simulate }) });
    io.stdout(describeServer(server.url, config, simulate, args.controls));
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr(`error: ${error.message}\n\n${USAGE}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof EmulatorConfigError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    io.stderr(`error: the emulator could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }

  const signal = await new Promise<string>((resolve) => {
    const undo = io.onStopSignal((name) => {
      undo();
      resolve(name);
    });
  });
  io.stdout(`\n${signal} received, stopping…\n`);
  await server.close();
  io.stdout('Emulator stopped.\n');
  return EXIT_OK;
}

function describeServer(url: string, config: EmulatorConfig, simulate: number | undefined, controls: boolean): string {
  const idWidth = Math.max(...config.websites.map((site) => site.id.length));
  const tokenWidth = Math.max(...config.websites.map((site) => site.token.length));
  const sites = config.websites.map(
    (site) => `  ${site.id.padEnd(idWidth)}  token ${site.token.padEnd(tokenWidth)}  plan ${site.plan} (${HOURLY_REQUEST_LIMITS[site.plan]} requests/hour)`,
  );
  return [
    `Realtime emulator listening on ${url}`,
    `  GET  ${url}/api/v1/realtime?websiteId=<id>   with Authorization: Bearer <token>`,
    `  POST ${url}/api/v1/pageviews   {"websiteId", "visitorId", "timestamp"?}`,
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
