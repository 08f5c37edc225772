import { ConfigError, describeValue, isPlainObject, readIdentifier, reportUnknownFields } from '../../server-kit/config-checks.js';
import { readJsonConfigFile } from '../../server-kit/json-file.js';
import { BEARER_TOKEN_SYNTAX, MAX_IDENTIFIER_LENGTH } from '../../src/contract/request.js';

/** Plans of the service, cheapest first. */
export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Requests per hour and per token allowed by each plan (docs/realtime-api.md#plan-limits). */
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

const WHAT = 'emulator';

/**
 * Checks a parsed JSON value and returns it as a config, or throws a `ConfigError`
 * listing every problem with the field it concerns (`websites[1].plan must be one of …`).
 */
export function parseEmulatorConfig(input: unknown, source = 'config'): EmulatorConfig {
  const issues: string[] = [];
  if (!isPlainObject(input)) {
    throw new ConfigError(WHAT, source, ['the config must be a JSON object like { "websites": [ … ] }']);
  }
  reportUnknownFields(input, ['websites'], '', issues);
  const entries = input.websites;
  if (!Array.isArray(entries)) {
    issues.push('websites must be an array of { "id", "token", "plan" } objects');
    throw new ConfigError(WHAT, source, issues);
  }
  if (entries.length === 0) issues.push('websites must list at least one website');

  const websites: WebsiteConfig[] = [];
  const seenIds = new Set<string>();
  const seenTokens = new Set<string>();
  entries.forEach((entry: unknown, index) => {
    const website = parseWebsite(entry, `websites[${index}]`, issues);
    if (!website) return;
    if (seenIds.has(website.id)) issues.push(`websites[${index}].id "${website.id}" is used by an earlier website`);
    if (seenTokens.has(website.token))
      issues.push(`websites[${index}].token is used by an earlier website; each website needs its own token`);
    seenIds.add(website.id);
    seenTokens.add(website.token);
    websites.push(website);
  });

  if (issues.length > 0) throw new ConfigError(WHAT, source, issues);
  return Object.freeze({ websites: Object.freeze(websites) });
}

/** Reads and validates a JSON config file; every failure is a `ConfigError` naming the file. */
export async function loadEmulatorConfig(path: string): Promise<EmulatorConfig> {
  return parseEmulatorConfig(await readJsonConfigFile(path, WHAT), path);
}

function parseWebsite(entry: unknown, at: string, issues: string[]): WebsiteConfig | undefined {
  if (!isPlainObject(entry)) {
    issues.push(`${at} must be an object like { "id": "my-shop", "token": "…", "plan": "free" }`);
    return undefined;
  }
  const before = issues.length;
  reportUnknownFields(entry, ['id', 'token', 'plan'], `${at}.`, issues);
  const { plan } = entry;
  const id = readIdentifier(entry.id, `${at}.id`, MAX_IDENTIFIER_LENGTH, issues);
  const token = readIdentifier(entry.token, `${at}.token`, MAX_IDENTIFIER_LENGTH, issues);
  if (token !== undefined && !BEARER_TOKEN_SYNTAX.test(token)) {
    issues.push(`${at}.token may only contain letters, digits and - . _ ~ + / (then optional trailing =), as a Bearer token must`);
  }
  if (!PLANS.includes(plan as Plan)) {
    issues.push(`${at}.plan must be one of ${PLANS.map((name) => `"${name}"`).join(', ')} (got ${describeValue(plan)})`);
  }
  if (issues.length > before) return undefined;
  return Object.freeze({ id: id as string, token: token as string, plan: plan as Plan });
}
