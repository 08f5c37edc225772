/** One website the relay answers for, with the token it sends upstream on that website's behalf. */
export interface RelayedWebsite {
  readonly id: string;
  /** Not enumerable on parsed configs, so `console.log(config)` or `JSON.stringify(config)` never shows it. */
  readonly token: string;
}

export interface RelayConfig {
  /** Base URL of the realtime service (path prefix kept, no trailing slash). */
  readonly upstream: string;
  readonly websites: readonly RelayedWebsite[];
  /** Exact origins allowed to read answers across origins; `['*']` for any; `[]` for same origin only. */
  readonly allowOrigins: readonly string[];
  /** Seconds an upstream answer is served before the relay asks again. */
  readonly interval: number;
  /** Seconds a last good answer may still be served while the service fails. */
  readonly maxStale: number;
  /** Upstream requests the relay may send in any rolling hour, all websites together. */
  readonly hourlyBudget: number;
}

/** What a config file (or code) may leave out. */
export const RELAY_DEFAULTS = Object.freeze({
  allowOrigins: Object.freeze([] as string[]),
  // The service's own client examples poll once a minute, and so does the widget.
  interval: 60,
  maxStale: 600,
  // The Free plan's hourly limit: a fresh install cannot overspend any plan.
  hourlyBudget: 100,
});

export const CONFIG_LIMITS = Object.freeze({
  maxIdLength: 256,
  maxTokenLength: 256,
  maxWebsites: 1_000,
  maxInterval: 3_600,
  maxMaxStale: 7 * 24 * 3_600,
  maxHourlyBudget: 1_000_000,
});

const KNOWN_FIELDS = ['upstream', 'websites', 'allowOrigins', 'interval', 'maxStale', 'hourlyBudget'] as const;
export type RelayConfigField = (typeof KNOWN_FIELDS)[number];

/** RFC 6750 `b64token`: the only token shape a `Bearer` header can carry (and no header injection). */
const BEARER_TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/;
// Ids travel in URLs and log lines; control characters there only ever hide mistakes.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Every problem of a config at once, each naming its field (and the variable it came from). Never a token. */
export class RelayConfigError extends Error {
  override name = 'RelayConfigError';

  constructor(
    readonly source: string,
    readonly issues: readonly string[],
  ) {
    super(`Invalid relay config (${source}):\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
  }
}

export interface ParseOptions {
  /** Names the config in error messages: a file path, "environment"… */
  readonly source?: string;
  /** Where a field's value came from when not from `source`, e.g. `{ interval: 'LIVE_VISITORS_INTERVAL' }`. */
  readonly fieldSources?: Partial<Record<RelayConfigField, string>>;
}

/**
 * Checks a parsed JSON value and returns a frozen, normalised config, or throws a
 * `RelayConfigError` listing every problem. Parsing a parsed config again gives an equal one.
 */
export function parseRelayConfig(input: unknown, options: ParseOptions = {}): RelayConfig {
  const source = options.source ?? 'config';
  const label = (field: RelayConfigField) => {
    const from = options.fieldSources?.[field];
    return from ? `${field} (from ${from})` : field;
  };
  if (!isPlainObject(input)) {
    throw new RelayConfigError(source, ['the config must be a JSON object like { "upstream": "https://…", "websites": [ … ] }']);
  }
  const issues: string[] = [];
  for (const name of Object.keys(input)) {
    if (!(KNOWN_FIELDS as readonly string[]).includes(name)) issues.push(`${name} is not a known field (expected ${KNOWN_FIELDS.join(', ')})`);
  }
  const upstream = readUpstream(input.upstream, label('upstream'), issues);
  const websites = readWebsites(input.websites, label('websites'), issues);
  const allowOrigins = readOrigins(input.allowOrigins ?? RELAY_DEFAULTS.allowOrigins, label('allowOrigins'), issues);
  const interval = readWholeNumber(input.interval ?? RELAY_DEFAULTS.interval, label('interval'), 'seconds', CONFIG_LIMITS.maxInterval, issues);
  const maxStale = readWholeNumber(input.maxStale ?? RELAY_DEFAULTS.maxStale, label('maxStale'), 'seconds', CONFIG_LIMITS.maxMaxStale, issues);
  const hourlyBudget = readWholeNumber(input.hourlyBudget ?? RELAY_DEFAULTS.hourlyBudget, label('hourlyBudget'), 'requests', CONFIG_LIMITS.maxHourlyBudget, issues);
  if (interval !== undefined && maxStale !== undefined && maxStale < interval) {
    // A fresh answer is served for `interval`; a shorter maximum age would contradict that.
    issues.push(`${label('maxStale')} (${maxStale}) must be at least interval (${interval})`);
  }
  if (issues.length > 0) throw new RelayConfigError(source, issues);
  return Object.freeze({
    upstream: upstream!,
    websites: websites!,
    allowOrigins: allowOrigins!,
    interval: interval!,
    maxStale: maxStale!,
    hourlyBudget: hourlyBudget!,
  });
}

function readUpstream(value: unknown, at: string, issues: string[]): string | undefined {
  const example = 'like "https://analytics.example.com"';
  if (typeof value !== 'string' || value.trim() === '') {
    issues.push(`${at} is required: the realtime service's base URL, ${example}`);
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    issues.push(`${at} must be an absolute http(s) URL, ${example}`);
    return undefined;
  }
  const before = issues.length;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') issues.push(`${at} must use https (or http), ${example}`);
  // Credentials in the URL would end up in log lines; the token goes in the Authorization header only.
  if (url.username || url.password) issues.push(`${at} must not contain a user name or password`);
  if (url.search || url.hash) issues.push(`${at} must not have a query or fragment: the relay adds /api/v1/realtime?websiteId=…`);
  if (issues.length > before) return undefined;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function readWebsites(value: unknown, at: string, issues: string[]): readonly RelayedWebsite[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    issues.push(`${at} must list at least one website, like [ { "id": "my-shop", "token": "…" } ]`);
    return undefined;
  }
  if (value.length > CONFIG_LIMITS.maxWebsites) {
    issues.push(`${at} lists ${value.length} websites; at most ${CONFIG_LIMITS.maxWebsites} are allowed`);
    return undefined;
  }
  const before = issues.length;
  const seen = new Set<string>();
  const websites = value.map((entry: unknown, index) => {
    const website = readWebsite(entry, `${at}[${index}]`, issues);
    if (website && seen.has(website.id)) issues.push(`${at}[${index}].id "${website.id}" is listed twice`);
    if (website) seen.add(website.id);
    return website;
  });
  return issues.length > before ? undefined : Object.freeze(websites as RelayedWebsite[]);
}

function readWebsite(entry: unknown, at: string, issues: string[]): RelayedWebsite | undefined {
  if (!isPlainObject(entry)) {
    issues.push(`${at} must be an object like { "id": "my-shop", "token": "…" }`);
    return undefined;
  }
  const before = issues.length;
  for (const name of Object.keys(entry)) {
    if (name !== 'id' && name !== 'token') issues.push(`${at}.${name} is not a known field (expected id, token)`);
  }
  const { id, token } = entry;
  if (typeof id !== 'string' || id === '') issues.push(`${at}.id must be a non-empty string`);
  else if (id.length > CONFIG_LIMITS.maxIdLength) issues.push(`${at}.id must be at most ${CONFIG_LIMITS.maxIdLength} characters`);
  else if (CONTROL_CHARACTERS.test(id)) issues.push(`${at}.id must not contain control characters`);
  // The token's value is never repeated in a message: messages end up in logs and terminals.
  if (typeof token !== 'string' || token === '') issues.push(`${at}.token must be a non-empty string: the website's API token`);
  else if (token.length > CONFIG_LIMITS.maxTokenLength) issues.push(`${at}.token must be at most ${CONFIG_LIMITS.maxTokenLength} characters`);
  else if (!BEARER_TOKEN_SYNTAX.test(token)) {
    issues.push(`${at}.token may only contain letters, digits and - . _ ~ + / (then optional trailing =), as a Bearer token must`);
  }
  if (issues.length > before) return undefined;
  return relayedWebsite(id as string, token as string);
}

/** A website record whose token is readable but not enumerable (kept out of logs and JSON). */
export function relayedWebsite(id: string, token: string): RelayedWebsite {
  const website = { id } as RelayedWebsite;
  Object.defineProperty(website, 'token', { value: token, enumerable: false });
  return Object.freeze(website);
}

function readOrigins(value: unknown, at: string, issues: string[]): readonly string[] | undefined {
  if (!Array.isArray(value)) {
    issues.push(`${at} must be an array of origins like ["https://shop.example"] (or ["*"], or [] for same origin only)`);
    return undefined;
  }
  const before = issues.length;
  value.forEach((origin: unknown, index) => {
    if (origin === '*') {
      if (value.length > 1) issues.push(`${at}[${index}] "*" allows every origin, so it must be the only entry`);
    } else if (!isOrigin(origin)) {
      issues.push(`${at}[${index}] must be an origin like "https://shop.example": scheme, host and port only, no path or trailing slash (got ${describe(origin)})`);
    }
  });
  return issues.length > before ? undefined : Object.freeze([...(value as string[])]);
}

function isOrigin(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

function readWholeNumber(value: unknown, at: string, unit: string, max: number, issues: string[]): number | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    issues.push(`${at} must be a whole number of ${unit} from 1 to ${max} (got ${describe(value)})`);
    return undefined;
  }
  return value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a wrong value was, without quoting anything that could be a token pasted into the wrong
 * field: numbers, URL-like strings and short words ("60", "soon") are shown, other strings only
 * by their length (API tokens are longer than 8 characters).
 */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  if (typeof value === 'string') {
    if (value.length <= 8 || /^[a-z][a-z0-9+.-]*:\/\/[^\s]{0,80}$/i.test(value)) return JSON.stringify(value);
    return `a string of ${value.length} characters`;
  }
  return Array.isArray(value) ? 'an array' : 'an object';
}
