import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ConfigError } from './config-checks.js';
import type { NodeServer } from './serve.js';

/** A mistake in a command line: the command prints it with its usage and exits with 2. */
export class CommandLineError extends Error {
  override name = 'CommandLineError';
}

type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/** Named flags only (no positionals), every mistake as a `CommandLineError`. */
export function parseFlags<T extends FlagOptions>(argv: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...argv], strict: true, allowPositionals: false, options }).values;
  } catch (error) {
    throw new CommandLineError(error instanceof Error ? error.message : String(error));
  }
}

/** A whole number from 0 to `max` written in decimal, or a `CommandLineError` naming the flag. */
export function wholeNumberFlag(flag: string, text: string, max: number): number {
  const value = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value <= max)) throw new CommandLineError(`${flag} must be a whole number from 0 to ${max} (got "${text}")`);
  return value;
}

/** The process around a command, replaceable so tests run it in-process. */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Calls `handler` once on SIGINT or SIGTERM; returns the undo. */
  onStopSignal(handler: (signal: string) => void): () => void;
  /** Environment variables a command may read its configuration from. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A command that serves until stopped. */
export interface ServerCommand {
  readonly usage: string;
  /** Parses the command line and starts serving; `help` when only the usage was asked for. */
  start(argv: readonly string[], io: CommandIo): Promise<StartedServer | 'help'>;
  /** Printed when a stop signal arrives, and once stopped. */
  readonly stopping: string;
  readonly stopped: string;
}

export interface StartedServer {
  readonly server: Pick<NodeServer, 'close'>;
  /** What it serves and where: printed to stdout once listening. */
  readonly banner: string;
  /** Printed to stderr after the banner, each as `warning: …`. */
  readonly warnings?: readonly string[];
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * Runs a server command to its end. Resolves with the exit code: 2 for a bad command line or
 * config, 1 when the server cannot start, 0 after a clean stop on SIGINT/SIGTERM.
 */
export async function runServerCommand(command: ServerCommand, argv: readonly string[], io: CommandIo): Promise<number> {
  let started: StartedServer;
  try {
    const result = await command.start(argv, io);
    if (result === 'help') {
      io.stdout(`${command.usage}\n`);
      return EXIT_OK;
    }
    started = result;
  } catch (error) {
    if (error instanceof CommandLineError) {
      io.stderr(`error: ${error.message}\n\n${command.usage}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof ConfigError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    // Only the message of the system error (EADDRINUSE…): configs are checked before, nothing here holds a token.
    io.stderr(`error: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }
  io.stdout(started.banner);
  for (const warning of started.warnings ?? []) io.stderr(`warning: ${warning}\n`);

  const signal = await new Promise<string>((resolve) => {
    const undo = io.onStopSignal((name) => {
      undo();
      resolve(name);
    });
  });
  io.stdout(`\n${signal} received, ${command.stopping}\n`);
  await started.server.close();
  io.stdout(`${command.stopped}\n`);
  return EXIT_OK;
}

/** The real process: its streams, its environment and its stop signals. */
export function processIo(): CommandIo {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    onStopSignal(handler) {
      for (const signal of signals) process.on(signal, handler);
      return () => {
        for (const signal of signals) process.off(signal, handler);
      };
    },
  };
}

/** Entry of a bin: runs the command on this process and exits with its code, whatever handle lingers. */
export async function main(command: ServerCommand): Promise<never> {
  process.exit(await runServerCommand(command, process.argv.slice(2), processIo()));
}
