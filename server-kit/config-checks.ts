// Runtime-neutral (no Node API): the relay's edge entry validates its config with these too.
/** Every problem of a config at once, each naming its field. Never quotes a value that could be a token. */
export class ConfigError extends Error {
  override name = 'ConfigError';

  constructor(
    /** "relay", "emulator": says whose config it is. */
    readonly what: string,
    /** A file path, "environment", "createRelay options"… */
    readonly source: string,
    readonly issues: readonly string[],
  ) {
    super(`Invalid ${what} config (${source}):\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Strict about names: a typo such as "intervall" would otherwise silently mean the default. */
export function reportUnknownFields(object: Record<string, unknown>, known: readonly string[], prefix: string, issues: string[]): void {
  for (const name of Object.keys(object)) {
    if (!known.includes(name)) issues.push(`${prefix}${name} is not a known field (expected ${known.join(', ')})`);
  }
}

// Ids travel in URLs and log lines; control characters there only ever hide mistakes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** A non-empty string of at most `maxLength` characters without control characters, or an issue naming `at`. */
export function readIdentifier(value: unknown, at: string, maxLength: number, issues: string[]): string | undefined {
  const before = issues.length;
  if (typeof value !== 'string' || value === '') issues.push(`${at} must be a non-empty string`);
  else if (value.length > maxLength) issues.push(`${at} must be at most ${maxLength} characters`);
  else if (CONTROL_CHARACTERS.test(value)) issues.push(`${at} must not contain control characters`);
  return issues.length > before ? undefined : (value as string);
}

/**
 * What a wrong value was, without quoting anything that could be a token pasted into the wrong
 * field: numbers, URL-like strings and short words ("60", "soon") are shown, other strings only
 * by their length (API tokens are longer than 8 characters).
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  if (typeof value === 'string') {
    if (value.length <= 8 || /^[a-z][a-z0-9+.-]*:\/\/[^\s]{0,80}$/i.test(value)) return JSON.stringify(value);
    return `a string of ${value.length} characters`;
  }
  return Array.isArray(value) ? 'an array' : 'an object';
}
