import { isPlainObject } from '../../server-kit/config-checks.js';
import { nearPosition } from '../../server-kit/json-position.js';
import { parseRelayConfig, type RelayConfig, RelayConfigError, type RelayConfigField } from './config.js';

/** The variable that overrides each config field, for platforms that take settings and secrets as environment variables. */
export const RELAY_ENVIRONMENT_VARIABLES = Object.freeze({
  upstream: 'LIVE_VISITORS_UPSTREAM',
  /** JSON, like the file's field: `[{"id":"my-shop","token":"…"}]`. */
  websites: 'LIVE_VISITORS_WEBSITES',
  /** Comma-separated origins, or a JSON array. */
  allowOrigins: 'LIVE_VISITORS_ALLOW_ORIGINS',
  interval: 'LIVE_VISITORS_INTERVAL',
  maxStale: 'LIVE_VISITORS_MAX_STALE',
  hourlyBudget: 'LIVE_VISITORS_HOURLY_BUDGET',
  store: 'LIVE_VISITORS_STORE',
  storePrefix: 'LIVE_VISITORS_STORE_PREFIX',
  storeDownBudget: 'LIVE_VISITORS_STORE_DOWN_BUDGET',
  /** Comma-separated origins, or a JSON array. */
  sourceBases: 'LIVE_VISITORS_SOURCE_BASES',
  /** A secret: the Shopify app's client secret, for its App Proxy's signatures. */
  shopifyAppSecret: 'LIVE_VISITORS_SHOPIFY_APP_SECRET',
  /** The Shopify app's client id, read as `{ "clientId": … }`. */
  shopifyApp: 'LIVE_VISITORS_SHOPIFY_CLIENT_ID',
  /** `true` or `false`. */
  selfServe: 'LIVE_VISITORS_SELF_SERVE',
  /** A secret: comma-separated `id:base64` keys, the encrypting one first. */
  encryptionKeys: 'LIVE_VISITORS_ENCRYPTION_KEYS',
  registrationsPerHour: 'LIVE_VISITORS_REGISTRATIONS_PER_HOUR',
  maxWebsites: 'LIVE_VISITORS_MAX_WEBSITES',
  registrationsFile: 'LIVE_VISITORS_REGISTRATIONS_FILE',
  /** `true` or `false`. */
  registrationsMayBeLost: 'LIVE_VISITORS_REGISTRATIONS_MAY_BE_LOST',
  /** A header a trusted proxy sets to the client's address, e.g. `x-forwarded-for`. */
  clientAddressHeader: 'LIVE_VISITORS_CLIENT_ADDRESS_HEADER',
  /** The https URL of `live-visitors.js` on a CDN, for the snippets the relay hands out. */
  scriptUrl: 'LIVE_VISITORS_SCRIPT_URL',
  /** A secret: the bearer token of `GET /metrics`. */
  metricsToken: 'LIVE_VISITORS_METRICS_TOKEN',
} satisfies Record<RelayConfigField, string>);

export type EnvironmentVariables = Readonly<Record<string, string | undefined>>;

/**
 * Validates `input` (a config file's JSON, or `{}`) with every variable of
 * `RELAY_ENVIRONMENT_VARIABLES` that is set (and not empty) taking precedence over the field it names.
 * Errors name the variable a wrong value came from.
 */
export function parseRelayConfigWithEnvironment(input: unknown, env: EnvironmentVariables, source = 'config'): RelayConfig {
  if (!isPlainObject(input)) return parseRelayConfig(input, { source });
  const merged: Record<string, unknown> = { ...input };
  const fieldSources: Partial<Record<RelayConfigField, string>> = {};
  const issues: string[] = [];
  for (const [field, name] of Object.entries(RELAY_ENVIRONMENT_VARIABLES) as Array<[RelayConfigField, string]>) {
    const text = env[name]?.trim();
    if (!text) continue;
    fieldSources[field] = name;
    const value = readVariable(field, name, text, issues);
    if (value !== undefined) merged[field] = value;
  }
  if (issues.length > 0) throw new RelayConfigError(source, issues);
  // A source's secrets may name variables of the same environment.
  return parseRelayConfig(merged, { source, fieldSources, environment: env });
}

/** The config from environment variables alone, for platforms without files. */
export function relayConfigFromEnvironment(env: EnvironmentVariables): RelayConfig {
  return parseRelayConfigWithEnvironment({}, env, 'environment');
}

function readVariable(field: RelayConfigField, name: string, text: string, issues: string[]): unknown {
  switch (field) {
    case 'upstream':
    case 'store':
    case 'storePrefix':
    case 'shopifyAppSecret':
    case 'registrationsFile':
    case 'clientAddressHeader':
    case 'scriptUrl':
    case 'metricsToken':
      return text;
    case 'shopifyApp':
      return { clientId: text };
    case 'selfServe':
    case 'registrationsMayBeLost':
      // Left as text when neither, so the config check names the variable and what it takes.
      return ({ true: true, false: false } as Record<string, boolean>)[text] ?? text;
    case 'encryptionKeys':
      return text
        .split(',')
        .map((key) => key.trim())
        .filter((key) => key !== '');
    case 'websites':
      return readJson(name, text, '[{"id":"my-shop","token":"…"}]', issues);
    case 'allowOrigins':
    case 'sourceBases':
      return text.startsWith('[')
        ? readJson(name, text, '["https://shop.example"]', issues)
        : text
            .split(',')
            .map((origin) => origin.trim())
            .filter((origin) => origin !== '');
    default:
      // Left as text when not a whole number, so the config check reports it with the usual words.
      return /^\d{1,9}$/.test(text) ? Number(text) : text;
  }
}

function readJson(name: string, text: string, example: string, issues: string[]): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    issues.push(`${name} is not valid JSON${nearPosition(error)}; expected something like ${example}`);
    return undefined;
  }
}
