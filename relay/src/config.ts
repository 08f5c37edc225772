import { ConfigError, describeValue, isPlainObject, reportUnknownFields } from '../../server-kit/config-checks.js';
import { MAX_IDENTIFIER_LENGTH } from '../../src/contract/request.js';
import rules from '../../src/contract/rules.json' with { type: 'json' };
import {
  checkSelfServe,
  readBoolean,
  readEncryptionKeys,
  readHeaderName,
  readRegistrationsFile,
  SELF_SERVE_DEFAULTS,
  SELF_SERVE_LIMITS,
  type SelfServeConfig,
} from './config-self-serve.js';
import { MAX_CONFIGURED_WEBSITES, type RelayedWebsite, readWebsites } from './config-websites.js';
import { readMetricsToken } from './metrics/metrics-token.js';
import { checkShopifyApp, readShopifyApp, type ShopifyAppConfig } from './shopify-app/shopify-app-config.js';
import type { SourceParseOptions } from './sources/parse-source.js';
import { parseRedisUrl } from './store/redis-url.js';

export interface RelayConfig extends SelfServeConfig {
  /** Base URL of the realtime service (path prefix kept, no trailing slash). */
  readonly upstream: string;
  readonly websites: readonly RelayedWebsite[];
  /** Exact origins allowed to read answers across origins; `['*']` for any; `[]` for same origin only. */
  readonly allowOrigins: readonly string[];
  /** Seconds an upstream answer is served before the relay asks again. */
  readonly interval: number;
  /** Seconds a last good answer may still be served while the service fails. */
  readonly maxStale: number;
  /** Upstream requests the relay may send in any rolling hour, all websites together (the whole fleet's, with a shared store). */
  readonly hourlyBudget: number;
  /** Where a fleet of instances keeps what must be one: `memory` (one instance) or a `redis://` URL. */
  readonly store: string;
  /** Prefix of every key in a shared store, so several relays can share one Redis. */
  readonly storePrefix: string;
  /** Upstream requests one instance may send on its own in an hour while the shared store is unreachable. */
  readonly storeDownBudget: number;
  /**
   * Origins besides each service's public API that registered sources may name (`base`, GA4's
   * `token_uri`): a shop's self-hosted Matomo, say. The operator's choice, never a registrant's;
   * the config's own sources may name any address.
   */
  readonly sourceBases: readonly string[];
  /**
   * The Shopify app's client secret, which signs its App Proxy requests; null when no website is a
   * Shopify shop. Not enumerable on parsed configs, like the tokens.
   */
  readonly shopifyAppSecret: string | null;
  /** The public Shopify app (its admin page, settings API and webhooks, see shopify-app/); null when the relay serves none. */
  readonly shopifyApp: ShopifyAppConfig | null;
  /**
   * Where the snippets the relay hands out load `live-visitors.js` from: a CDN's copy; null (the
   * default) for the relay's own copy, served at `/element/{build}/live-visitors.js`.
   */
  readonly scriptUrl: string | null;
  /** The bearer token of `GET /metrics`; null: no `/metrics` (404). A secret: not enumerable on parsed configs, like the tokens. */
  readonly metricsToken: string | null;
}

/** A config as written in a file or in code: everything but the upstream has a default (websites are required unless selfServe). */
export type RelayConfigInput = Pick<RelayConfig, 'upstream'> & Partial<Omit<RelayConfig, 'upstream'>>;

/** What a config file (or code) may leave out. */
export const RELAY_DEFAULTS = Object.freeze({
  allowOrigins: Object.freeze([] as string[]),
  // The service's own client examples poll once a minute, and so does the widget.
  interval: rules.defaultIntervalSeconds,
  maxStale: rules.defaultMaxStaleSeconds,
  // The Free plan's hourly limit: a fresh install cannot overspend any plan. With selfServe, see selfServeHourlyBudget.
  hourlyBudget: rules.defaultHourlyBudget,
  store: 'memory',
  storePrefix: 'live-visitors-relay:',
  // Without the store no instance knows what the others spent: by default none asks alone, so the
  // fleet can never pass its budget; the last good answer is served until maxStale.
  storeDownBudget: 0,
  // Registrants may name only each service's public API until the operator lists more.
  sourceBases: Object.freeze([] as string[]),
  shopifyAppSecret: null,
  shopifyApp: null,
  scriptUrl: null,
  metricsToken: null,
  ...SELF_SERVE_DEFAULTS,
});

export const CONFIG_LIMITS = Object.freeze({
  maxIdLength: MAX_IDENTIFIER_LENGTH,
  maxTokenLength: MAX_IDENTIFIER_LENGTH,
  maxWebsites: MAX_CONFIGURED_WEBSITES,
  maxInterval: rules.relayMaxIntervalSeconds,
  maxMaxStale: rules.relayMaxMaxStaleSeconds,
  maxHourlyBudget: rules.relayMaxHourlyBudget,
  maxStorePrefixLength: 64,
  maxSecretLength: 256,
});

const KNOWN_FIELDS = [
  'upstream',
  'websites',
  'allowOrigins',
  'interval',
  'maxStale',
  'hourlyBudget',
  'store',
  'storePrefix',
  'storeDownBudget',
  'sourceBases',
  'shopifyAppSecret',
  'shopifyApp',
  'selfServe',
  'encryptionKeys',
  'registrationsPerHour',
  'maxWebsites',
  'registrationsFile',
  'registrationsMayBeLost',
  'clientAddressHeader',
  'scriptUrl',
  'metricsToken',
] as const;
export type RelayConfigField = (typeof KNOWN_FIELDS)[number];
type WholeNumberField = 'interval' | 'maxStale' | 'hourlyBudget' | 'storeDownBudget' | 'registrationsPerHour' | 'maxWebsites';

/**
 * A self-serving relay's default `hourlyBudget`: every website it may hold (its own and
 * `maxWebsites` registered ones) asked once per interval. Each registered website keeps its own
 * budget (one Free plan's 100 by default); the relay's is the operator's cap over them all, and
 * one plan's 100 as that cap would leave all but a handful of a thousand shops unserved.
 */
export function selfServeHourlyBudget(websites: number, intervalSeconds: number): number {
  return Math.min(CONFIG_LIMITS.maxHourlyBudget, websites * Math.ceil(3_600 / intervalSeconds));
}

/** Every problem of a relay config at once, each naming its field (and the variable it came from). Never a token. */
export class RelayConfigError extends ConfigError {
  override name = 'RelayConfigError';

  constructor(source: string, issues: readonly string[]) {
    super('relay', source, issues);
  }
}

export interface ParseOptions {
  /** Names the config in error messages: a file path, "environment"… */
  readonly source?: string;
  /** Where a field's value came from when not from `source`, e.g. `{ interval: 'LIVE_VISITORS_INTERVAL' }`. */
  readonly fieldSources?: Partial<Record<RelayConfigField, string>>;
  /** Where a source's `{ "env": "NAME" }` secrets are read (the process's or the platform's variables). */
  readonly environment?: SourceParseOptions['environment'];
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
  reportUnknownFields(input, KNOWN_FIELDS, '', issues);
  const upstream = readUpstream(input.upstream, label('upstream'), issues);
  const selfServe = readBoolean(input.selfServe ?? RELAY_DEFAULTS.selfServe, label('selfServe'), issues);
  // A self-serving relay may start with no website of its own: owners register theirs.
  const websites = readWebsites(input.websites ?? (selfServe ? [] : undefined), label('websites'), issues, selfServe === true, options);
  const allowOrigins = readOrigins(input.allowOrigins ?? RELAY_DEFAULTS.allowOrigins, label('allowOrigins'), issues);
  /** A whole-number field: its value or default, checked and named (with the variable it came from). */
  const wholeNumber = (field: WholeNumberField, unit: string, max: number, min = 1) =>
    readWholeNumber(input[field] ?? RELAY_DEFAULTS[field], label(field), unit, max, issues, min);
  const interval = wholeNumber('interval', 'seconds', CONFIG_LIMITS.maxInterval);
  const maxStale = wholeNumber('maxStale', 'seconds', CONFIG_LIMITS.maxMaxStale);
  const store = readStore(input.store ?? RELAY_DEFAULTS.store, label('store'), issues);
  const storePrefix = readStorePrefix(input.storePrefix ?? RELAY_DEFAULTS.storePrefix, label('storePrefix'), issues);
  const storeDownBudget = wholeNumber('storeDownBudget', 'requests', CONFIG_LIMITS.maxHourlyBudget, 0);
  const sourceBases = readSourceBases(input.sourceBases ?? RELAY_DEFAULTS.sourceBases, label('sourceBases'), issues);
  const shopifyAppSecret = readShopifyAppSecret(input.shopifyAppSecret ?? null, label('shopifyAppSecret'), issues);
  const shopifyApp = readShopifyApp(input.shopifyApp ?? null, label('shopifyApp'), issues);
  const metricsToken = readMetricsToken(input.metricsToken ?? null, label('metricsToken'), issues);
  if (shopifyApp !== undefined && shopifyAppSecret !== undefined) checkShopifyApp(shopifyApp, shopifyAppSecret, selfServe === true, issues);
  const encryptionKeys = readEncryptionKeys(input.encryptionKeys ?? RELAY_DEFAULTS.encryptionKeys, label('encryptionKeys'), issues);
  const registrationsPerHour = wholeNumber('registrationsPerHour', 'attempts', SELF_SERVE_LIMITS.maxRegistrationsPerHour);
  const maxWebsites = wholeNumber('maxWebsites', 'websites', SELF_SERVE_LIMITS.maxWebsites);
  const hourlyBudget = readWholeNumber(
    input.hourlyBudget ??
      (selfServe && interval !== undefined && maxWebsites !== undefined
        ? selfServeHourlyBudget((websites?.length ?? 0) + maxWebsites, interval)
        : RELAY_DEFAULTS.hourlyBudget),
    label('hourlyBudget'),
    'requests',
    CONFIG_LIMITS.maxHourlyBudget,
    issues,
  );
  const registrationsFile = readRegistrationsFile(input.registrationsFile ?? null, label('registrationsFile'), issues);
  const registrationsMayBeLost = readBoolean(
    input.registrationsMayBeLost ?? RELAY_DEFAULTS.registrationsMayBeLost,
    label('registrationsMayBeLost'),
    issues,
  );
  const clientAddressHeader = readHeaderName(
    input.clientAddressHeader ?? RELAY_DEFAULTS.clientAddressHeader,
    label('clientAddressHeader'),
    issues,
  );
  const scriptUrl = readScriptUrl(input.scriptUrl ?? RELAY_DEFAULTS.scriptUrl, label('scriptUrl'), issues);
  if (selfServe !== undefined && encryptionKeys && registrationsFile !== undefined && store !== undefined) {
    checkSelfServe({ selfServe, encryptionKeys, registrationsFile, store }, label, issues);
  }
  if (selfServe === true && store?.includes('+cluster:')) {
    // The registrations' store still keeps one hash of every registration, which a cluster cannot serve from every node.
    issues.push(`${label('selfServe')} does not run on a Redis Cluster yet: use a single Redis (redis://…) for a self-serving relay`);
  }
  const shops = websites?.filter((website) => website.shop !== undefined) ?? [];
  if (shops.length > 0 && shopifyAppSecret === null) {
    issues.push(
      `${label('websites')} names a Shopify shop, so shopifyAppSecret (or LIVE_VISITORS_SHOPIFY_APP_SECRET) is required: the app's client secret, which signs its App Proxy requests`,
    );
  }
  if (interval !== undefined && maxStale !== undefined && maxStale < interval) {
    // A fresh answer is served for `interval`; a shorter maximum age would contradict that.
    issues.push(`${label('maxStale')} (${maxStale}) must be at least interval (${interval})`);
  }
  if (issues.length > 0) throw new RelayConfigError(source, issues);
  const config = {
    upstream: upstream!,
    websites: websites!,
    allowOrigins: allowOrigins!,
    interval: interval!,
    maxStale: maxStale!,
    hourlyBudget: hourlyBudget!,
    store: store!,
    storePrefix: storePrefix!,
    storeDownBudget: storeDownBudget!,
    sourceBases: sourceBases!,
    selfServe: selfServe!,
    registrationsPerHour: registrationsPerHour!,
    maxWebsites: maxWebsites!,
    registrationsFile: registrationsFile!,
    registrationsMayBeLost: registrationsMayBeLost!,
    clientAddressHeader: clientAddressHeader!,
    shopifyApp: shopifyApp!,
    scriptUrl: scriptUrl!,
  } as RelayConfig;
  Object.defineProperty(config, 'shopifyAppSecret', { value: shopifyAppSecret ?? null, enumerable: false });
  Object.defineProperty(config, 'encryptionKeys', { value: encryptionKeys, enumerable: false });
  Object.defineProperty(config, 'metricsToken', { value: metricsToken ?? null, enumerable: false });
  return Object.freeze(config);
}

/** The app's client secret as Shopify shows it (hex), or any printable text without spaces; never quoted in a message. */
function readShopifyAppSecret(value: unknown, at: string, issues: string[]): string | null | undefined {
  if (value === null) return null;
  const max = CONFIG_LIMITS.maxSecretLength;
  if (typeof value === 'string' && value.length > 0 && value.length <= max && /^[\x21-\x7e]+$/.test(value)) return value;
  issues.push(`${at} must be the Shopify app's client secret: 1 to ${max} printable characters without spaces`);
  return undefined;
}

/** An https URL of `live-visitors.js` (shops' pages are https: an http script would be blocked), or null. */
function readScriptUrl(value: unknown, at: string, issues: string[]): string | null | undefined {
  if (value === null) return null;
  try {
    const url = new URL(String(value).trim());
    if (typeof value === 'string' && url.protocol === 'https:' && !url.username && !url.password && /\.js$/.test(url.pathname))
      return url.href;
  } catch {}
  issues.push(
    `${at} must be the https URL of live-visitors.js on a CDN, like "https://cdn.example/live-visitors@0.1.0/live-visitors.js", or null for the relay's own copy (got ${describeValue(value)})`,
  );
  return undefined;
}

/** `memory`, or a Redis URL as the Redis store reads it; a wrong one is described without its credentials. */
function readStore(value: unknown, at: string, issues: string[]): string | undefined {
  if (value === 'memory') return value;
  if (typeof value !== 'string') {
    issues.push(`${at} must be "memory" or a Redis URL like "redis://127.0.0.1:6379/0" (got ${describeValue(value)})`);
    return undefined;
  }
  try {
    parseRedisUrl(value);
    return value.trim();
  } catch (error) {
    // Its messages name the field "store" and never quote the URL's credentials.
    issues.push(`${(error as Error).message.replace(/^store/, at)}; or "memory" for one instance`);
    return undefined;
  }
}

function readStorePrefix(value: unknown, at: string, issues: string[]): string | undefined {
  const max = CONFIG_LIMITS.maxStorePrefixLength;
  if (typeof value === 'string' && value.length <= max && /^[\w:.-]*$/.test(value)) return value;
  issues.push(`${at} must be up to ${max} letters, digits and _ : . - (got ${describeValue(value)})`);
  return undefined;
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
      issues.push(
        `${at}[${index}] must be an origin like "https://shop.example": scheme, host and port only, no path or trailing slash (got ${describeValue(origin)})`,
      );
    }
  });
  return issues.length > before ? undefined : Object.freeze([...(value as string[])]);
}

/** Origins a registered source may name besides the public APIs: each an exact http(s) origin, at most 100. */
function readSourceBases(value: unknown, at: string, issues: string[]): readonly string[] | undefined {
  if (!Array.isArray(value) || value.length > 100) {
    issues.push(`${at} must be a list of at most 100 origins like ["https://matomo.shop.example"]`);
    return undefined;
  }
  const before = issues.length;
  value.forEach((origin: unknown, index) => {
    if (!isOrigin(origin)) {
      issues.push(
        `${at}[${index}] must be an origin like "https://matomo.shop.example": scheme, host and port only, no path or trailing slash (got ${describeValue(origin)})`,
      );
    }
  });
  return issues.length > before ? undefined : Object.freeze([...(value as string[])]);
}

/** An exact `http(s)` origin: scheme, host and port, no path or trailing slash. */
export function isOrigin(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

function readWholeNumber(value: unknown, at: string, unit: string, max: number, issues: string[], min = 1): number | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    issues.push(`${at} must be a whole number of ${unit} from ${min} to ${max} (got ${describeValue(value)})`);
    return undefined;
  }
  return value;
}

// The websites' readers, apart: importers of the config keep one path. The advice about a valid
// config is imported from config-warnings.ts, which reads RelayConfig (a re-export here made a loop).
export { type RelayedWebsite, relayedWebsite } from './config-websites.js';
