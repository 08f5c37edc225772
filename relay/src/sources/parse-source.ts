import { describeValue, isPlainObject, reportUnknownFields } from '../../../server-kit/config-checks.js';
import { isLoopbackHost } from '../../../server-kit/loopback.js';
import { SOURCE_DEFINITIONS } from './kinds.js';
import { SOURCE_KINDS, type SourceKind, type SourceSettings } from './source.js';

export interface SourceParseOptions {
  /** Where `{ "env": "NAME" }` secrets are read; without it such a secret is refused. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

export type SourceParse = { readonly source: SourceSettings } | { readonly issues: readonly string[] };

/** Longest secret accepted: a service account's JSON key is about 2.4 KB. */
const MAX_SECRET_LENGTH = 8_192;

/**
 * A website's `source` (from a config file, the environment or a registration) checked and
 * frozen, or every problem with it, each naming its field after `path` (`websites[0].source`)
 * and never quoting a secret. Secrets are given as text, or as `{ "env": "NAME" }` to be read
 * from the environment variable NAME (platforms with secret stores); they are not enumerable on
 * the result. Parsing a parsed source again gives an equal one.
 */
export function parseSource(value: unknown, path: string, options: SourceParseOptions = {}): SourceParse {
  if (!isPlainObject(value)) {
    return { issues: [`${path} must be an object like { "kind": "plausible", "siteId": "shop.example", "apiKey": "…" }`] };
  }
  const { kind } = value;
  if (typeof kind !== 'string' || !(SOURCE_KINDS as readonly string[]).includes(kind)) {
    return { issues: [`${path}.kind must be one of ${SOURCE_KINDS.join(', ')} (got ${describeValue(kind)})`] };
  }
  const definition = SOURCE_DEFINITIONS[kind as SourceKind];
  const issues: string[] = [];
  reportUnknownFields(value, ['kind', 'base', 'hourlyBudget', ...definition.fields], `${path}.`, issues);
  const base = readBase(value.base ?? definition.defaultBase, `${path}.base`, issues);
  const hourlyBudget = value.hourlyBudget ?? definition.defaultHourlyBudget;
  if (
    typeof hourlyBudget !== 'number' ||
    !Number.isInteger(hourlyBudget) ||
    hourlyBudget < 1 ||
    hourlyBudget > definition.maxHourlyBudget
  ) {
    issues.push(
      `${path}.hourlyBudget must be a whole number of requests from 1 to ${definition.maxHourlyBudget}, the service's limit (got ${describeValue(hourlyBudget)})`,
    );
  }
  const entry: Record<string, unknown> = { ...value };
  for (const field of definition.secretFields) {
    const secret = readSecret(value[field], `${path}.${field}`, field === 'credentials', issues, options);
    // null: given but refused (already reported); undefined: not given at all.
    entry[field] = secret === undefined && value[field] !== undefined ? null : secret;
  }
  const own = definition.parse(entry, path, issues);
  if (issues.length > 0 || own === undefined || base === undefined) return { issues };
  const source = { kind, base, hourlyBudget } as Record<string, unknown>;
  for (const [field, fieldValue] of Object.entries(own)) {
    if (fieldValue === undefined) continue;
    // Secrets stay readable but out of logs and JSON, like a website's token.
    Object.defineProperty(source, field, { value: fieldValue, enumerable: !definition.secretFields.includes(field) });
  }
  return { source: Object.freeze(source) as unknown as SourceSettings };
}

/** The service's API root: absolute, https (http only to this machine), no credentials, query or fragment. */
function readBase(value: unknown, at: string, issues: string[]): string | undefined {
  if (value === null) {
    issues.push(`${at} is required for this kind: the service's own address, like "https://matomo.shop.example"`);
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    // Not quoted: a URL that fails to parse may still hold a password (`https://me:pa/ss@host`).
    issues.push(`${at} must be an absolute https URL, like "https://plausible.example"`);
    return undefined;
  }
  const before = issues.length;
  // Credentials in a URL end up in log lines; secrets go in their own fields.
  if (url.username || url.password) issues.push(`${at} must not contain a user name or password: put secrets in their own fields`);
  if (url.search || url.hash) issues.push(`${at} must not have a query or fragment`);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    issues.push(`${at} must use https (plain http only to this machine): the secrets would cross the network unencrypted`);
  }
  return issues.length > before ? undefined : `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** A secret as written, or read from the environment variable `{ "env": "NAME" }` names; never quoted in a message. */
function readSecret(
  value: unknown,
  at: string,
  structured: boolean,
  issues: string[],
  options: SourceParseOptions,
): string | Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let secret: unknown = value;
  if (isPlainObject(value) && typeof value.env === 'string' && Object.keys(value).length === 1) {
    const name = value.env;
    if (!/^[A-Z_][A-Z0-9_]{0,127}$/.test(name)) {
      issues.push(`${at}.env must name an environment variable in capitals, like "PLAUSIBLE_API_KEY"`);
      return undefined;
    }
    if (!options.environment) {
      issues.push(`${at} names the environment variable ${name}, but this config is not read with the environment`);
      return undefined;
    }
    secret = options.environment[name]?.trim();
    if (!secret) {
      issues.push(`${at} names the environment variable ${name}, which is not set`);
      return undefined;
    }
  }
  if (structured && isPlainObject(secret)) return secret;
  if (typeof secret !== 'string' || secret === '' || secret.length > MAX_SECRET_LENGTH) {
    issues.push(`${at} must be a non-empty string of at most ${MAX_SECRET_LENGTH} characters, or { "env": "NAME" }`);
    return undefined;
  }
  // A key never holds spaces: one that does was pasted with a label, a line break or a quote.
  if (!structured && !/^[\x21-\x7e]+$/.test(secret)) {
    issues.push(
      `${at} must be printable characters without spaces, as the service shows the key (check for a line break or a label pasted along)`,
    );
    return undefined;
  }
  return secret;
}
