import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in a command line: the command prints it with its usage and exits with 2. */
export class CommandLineError extends Error {
  override name = 'CommandLineError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Named flags only (no positionals), every mistake as a `CommandLineError`. */
export function parseFlags<T extends Options>(argv: readonly string[], options: T) {
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
