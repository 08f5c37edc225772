import { parseRelayArguments, RelayUsageError, USAGE } from './cli-arguments.js';
import { RelayConfigError, type RelayConfig } from './config.js';
import { relayConfigWarnings } from './config-warnings.js';
import type { EnvironmentVariables } from './environment-overrides.js';
import { loadRelayConfig } from './load-config.js';
import { REALTIME_PATH } from './relay.js';
import { startRelayServer, type RelayServer, type RelayServerOptions } from './server.js';

/** The process around the command, replaceable so tests run it in-process. */
export interface RelayCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Calls `handler` once on SIGINT or SIGTERM; returns the undo. */
  onStopSignal(handler: (signal: string) => void): () => void;
  /** Where `LIVE_VISITORS_*` overrides are read. */
  readonly env: EnvironmentVariables;
  /** Test seam: how the relay reaches the service (the global `fetch` when absent). */
  readonly fetch?: RelayServerOptions['fetch'];
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * `live-visitors-relay --port <n> --config <file>`. Resolves with the exit code: 2 for a bad
 * command line or config, 1 when the server cannot start, 0 after a clean stop on SIGINT/SIGTERM.
 */
export async function runRelayCommand(argv: readonly string[], io: RelayCommandIo): Promise<number> {
  let server: RelayServer;
  try {
    const args = parseRelayArguments(argv);
    if (args.help) {
      io.stdout(`${USAGE}\n`);
      return EXIT_OK;
    }
    const config = await loadRelayConfig(args.configPath, io.env);
    server = await startRelayServer({
      port: args.port,
      config,
      log: (line) => io.stderr(`${line}\n`),
      ...(io.fetch ? { fetch: io.fetch } : {}),
    });
    io.stdout(describeRelay(server.url, config));
    for (const warning of relayConfigWarnings(config)) io.stderr(`warning: ${warning}\n`);
  } catch (error) {
    if (error instanceof RelayUsageError) {
      io.stderr(`error: ${error.message}\n\n${USAGE}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof RelayConfigError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    // Only the code and message of the system error (EADDRINUSE…): nothing here holds a token.
    io.stderr(`error: the relay could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }

  const signal = await new Promise<string>((resolve) => {
    const undo = io.onStopSignal((name) => {
      undo();
      resolve(name);
    });
  });
  io.stdout(`\n${signal} received, finishing answers in flight…\n`);
  await server.close();
  io.stdout('Relay stopped.\n');
  return EXIT_OK;
}

/** Where it listens and what it relays: website ids, never their tokens. */
export function describeRelay(url: string, config: RelayConfig): string {
  const origins = config.allowOrigins.length === 0 ? 'none (same-origin pages only)' : config.allowOrigins.join(', ');
  return [
    `live-visitors relay listening on ${url}`,
    `  GET ${url}${REALTIME_PATH}?websiteId=<id>`,
    `Upstream: ${config.upstream}`,
    `Websites: ${config.websites.map((website) => website.id).join(', ')}`,
    `Allowed origins: ${origins}`,
    `One upstream request per website every ${config.interval} s; last good answer served up to ${config.maxStale} s; ` +
      `at most ${config.hourlyBudget} upstream requests an hour.`,
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}
