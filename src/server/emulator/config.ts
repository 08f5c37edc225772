import { MAX_IDENTIFIER_LENGTH } from './input-limits.js';

/** Plans of the service, cheapest first. */
export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Requests per hour and per token allowed by each plan (spec part 8). */
export const HOURLY_REQUEST_LIMITS: Readonly<Record<Plan, number>> = Object.freeze({
  free: 100,
  pro: 1_000,
  enterprise: 10_000,
});

export interface WebsiteConfig {
  readonly id: string;
  readonly token: string;
  readonly plan: Plan;
}

export interface EmulatorConfig {
  readonly websites: readonly WebsiteConfig[];
}

/**
 * Works out of the box: the demo site is on `enterprise` so a demo left open all day
 * never meets a limit; the second site is on `free` to show the limit quickly.
 */
export const DEFAULT_EMULATOR_CONFIG: EmulatorConfig = Object.freeze({
  websites: Object.freeze([
    Object.freeze({ id: 'demo-shop', token: 'demo-token', plan: 'enterprise' as const }),
    Object.freeze({ id: 'small-shop', token: 'small-shop-token', plan: 'free' as const }),
  ]),
});

/** RFC 6750 `b64token`: the only token shape a `Bearer` header can carry. */
export const BEARER_TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/;

// Ids travel in URLs and logs; control characters there only ever hide mistakes.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

export class EmulatorConfigError extends Error {
  override name = 'EmulatorConfigError';

  constructor(
    readonly source: string,
    readonly issues: readonly string[],
  ) {
    super(`Invalid emulator config (${source}):\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
  }
}

/**
 * Checks a parsed JSON value and returns it as a config, or throws an
 * `EmulatorConfigError` listing every problem with the field it concerns
 * (`websites[1].plan must be one of …`).
 */
export function parseEmulatorConfig(input: unknown, source = 'config'): EmulatorConfig {
  const issues: string[] = [];
  if (!isPlainObject(input)) {
    throw new EmulatorConfigError(source, ['the config must be a JSON object like { "websites": [ … ] }']);
  }
  reportUnknownFields(input, ['websites'], '', issues);
  const entries = input['websites'];
  if (!Array.isArray(entries)) {
    issues.push('websites must be an array of { "id", "token", "plan" } objects');
    throw new EmulatorConfigError(source, issues);
  }
  if (entries.length === 0) issues.push('websites must list at least one website');

  const websites: WebsiteConfig[] = [];
  const seenIds = new Set<string>();
  const seenTokens = new Set<string>();
  entries.forEach((entry: unknown, index) => {
    const website = parseWebsite(entry, `websites[${index}]`, issues);
    if (!website) return;
    if (seenIds.has(website.id)) issues.push(`websites[${index}].id "${website.id}" is used by an earlier website`);
    if (seenTokens.has(website.token)) issues.push(`websites[${index}].token is used by an earlier website; each website needs its own token`);
    seenIds.add(website.id);
    seenTokens.add(website.token);
    websites.push(website);
  });

  if (issues.length > 0) throw new EmulatorConfigError(source, issues);
  return Object.freeze({ websites: Object.freeze(websites) });
}

function parseWebsite(entry: unknown, at: string, issues: string[]): WebsiteConfig | undefined {
  if (!isPlainObject(entry)) {
    issues.push(`${at} must be an object like { "id": "my-shop", "token": "…", "plan": "free" }`);
    return undefined;
  }
  const before = issues.length;
  reportUnknownFields(entry, ['id', 'token', 'plan'], `${at}.`, issues);
  const { id, token, plan } = entry;

  checkIdentifierField(id, `${at}.id`, issues);
  checkIdentifierField(token, `${at}.token`, issues);
  if (typeof token === 'string' && token.length > 0 && !BEARER_TOKEN_SYNTAX.test(token)) {
    issues.push(`${at}.token may only contain letters, digits and - . _ ~ + / (then optional trailing =), as a Bearer token must`);
  }
  if (!PLANS.includes(plan as Plan)) {
    issues.push(`${at}.plan must be one of ${PLANS.map((name) => `"${name}"`).join(', ')} (got ${JSON.stringify(plan) ?? 'nothing'})`);
  }
  if (issues.length > before) return undefined;
  return Object.freeze({ id: id as string, token: token as string, plan: plan as Plan });
}

function checkIdentifierField(value: unknown, at: string, issues: string[]): void {
  if (typeof value !== 'string') issues.push(`${at} must be a string (got ${JSON.stringify(value) ?? 'nothing'})`);
  else if (value.length === 0) issues.push(`${at} must not be empty`);
  else if (value.length > MAX_IDENTIFIER_LENGTH) issues.push(`${at} must be at most ${MAX_IDENTIFIER_LENGTH} characters`);
  else if (CONTROL_CHARACTERS.test(value)) issues.push(`${at} must not contain control characters`);
}

// Strict about names: a typo such as "plna" would otherwise silently fall back to nothing.
function reportUnknownFields(object: Record<string, unknown>, known: readonly string[], prefix: string, issues: string[]): void {
  for (const name of Object.keys(object)) {
    if (!known.includes(name)) issues.push(`${prefix}${name} is not a known field (expected ${known.join(', ')})`);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
