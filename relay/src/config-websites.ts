import { describeValue, isPlainObject, readIdentifier, reportUnknownFields } from '../../server-kit/config-checks.js';
import { BEARER_TOKEN_SYNTAX, MAX_IDENTIFIER_LENGTH } from '../../src/contract/request.js';
import { SHOPIFY_SHOP_SYNTAX } from './shopify-app/shop-domain.js';
import { parseSource, type SourceParseOptions } from './sources/parse-source.js';
import type { SourceSettings } from './sources/source.js';

// The config's websites: each id with its token (or source) and, behind Shopify's App Proxy, its shop.

/** Websites one config may list. */
export const MAX_CONFIGURED_WEBSITES = 1_000;

/** One website the relay answers for, with the token it sends upstream on that website's behalf. */
export interface RelayedWebsite {
  readonly id: string;
  /** Not enumerable on parsed configs, so `console.log(config)` or `JSON.stringify(config)` never shows it. */
  readonly token: string;
  /**
   * The Shopify shop (`name.myshopify.com`) this website is: then it is served only through that
   * shop's App Proxy, to requests Shopify signed (see shopify-app-proxy.ts).
   */
  readonly shop?: string;
  /**
   * Where the count comes from when not from `upstream`, the contract's service: Plausible, Umami,
   * Matomo, GA4 or Fathom (relay/src/sources/). Its secrets are not enumerable, like the token.
   */
  readonly source?: SourceSettings;
}

export function readWebsites(
  value: unknown,
  at: string,
  issues: string[],
  mayBeEmpty: boolean,
  options: SourceParseOptions,
): readonly RelayedWebsite[] | undefined {
  if (!Array.isArray(value) || (value.length === 0 && !mayBeEmpty)) {
    issues.push(`${at} must list at least one website, like [ { "id": "my-shop", "token": "…" } ]`);
    return undefined;
  }
  if (value.length > MAX_CONFIGURED_WEBSITES) {
    issues.push(`${at} lists ${value.length} websites; at most ${MAX_CONFIGURED_WEBSITES} are allowed`);
    return undefined;
  }
  const before = issues.length;
  const seen = new Set<string>();
  const seenShops = new Set<string>();
  const websites = value.map((entry: unknown, index) => {
    const website = readWebsite(entry, `${at}[${index}]`, issues, options);
    if (website && seen.has(website.id)) issues.push(`${at}[${index}].id "${website.id}" is listed twice`);
    if (website) seen.add(website.id);
    // One website per shop: a signed request names its shop, and the shop names the one website it may read.
    if (website?.shop !== undefined && seenShops.has(website.shop)) issues.push(`${at}[${index}].shop "${website.shop}" is listed twice`);
    if (website?.shop !== undefined) seenShops.add(website.shop);
    return website;
  });
  return issues.length > before ? undefined : Object.freeze(websites as RelayedWebsite[]);
}

function readWebsite(entry: unknown, at: string, issues: string[], options: SourceParseOptions): RelayedWebsite | undefined {
  if (!isPlainObject(entry)) {
    issues.push(`${at} must be an object like { "id": "my-shop", "token": "…" }`);
    return undefined;
  }
  const before = issues.length;
  reportUnknownFields(entry, ['id', 'token', 'shop', 'source'], `${at}.`, issues);
  const { token } = entry;
  const id = readIdentifier(entry.id, `${at}.id`, MAX_IDENTIFIER_LENGTH, issues);
  const source = entry.source === undefined ? undefined : readSource(entry.source, `${at}.source`, issues, options);
  // The token's value is never repeated in a message: messages end up in logs and terminals.
  if (entry.source !== undefined) {
    // A parsed website with a source has an empty token: parsing it again must give the same website.
    if (token !== undefined && token !== '')
      issues.push(`${at} takes a token (for upstream) or a source, not both: the source holds its own key`);
  } else if (typeof token !== 'string' || token === '') issues.push(`${at}.token must be a non-empty string: the website's API token`);
  else if (token.length > MAX_IDENTIFIER_LENGTH) issues.push(`${at}.token must be at most ${MAX_IDENTIFIER_LENGTH} characters`);
  else if (!BEARER_TOKEN_SYNTAX.test(token)) {
    issues.push(`${at}.token may only contain letters, digits and - . _ ~ + / (then optional trailing =), as a Bearer token must`);
  }
  const shop = entry.shop === undefined ? undefined : readShop(entry.shop, `${at}.shop`, issues);
  if (issues.length > before) return undefined;
  return relayedWebsite(id!, source === undefined ? (token as string) : '', shop, source);
}

function readSource(value: unknown, at: string, issues: string[], options: SourceParseOptions): SourceSettings | undefined {
  const parsed = parseSource(value, at, options);
  if ('issues' in parsed) issues.push(...parsed.issues);
  return 'source' in parsed ? parsed.source : undefined;
}

function readShop(value: unknown, at: string, issues: string[]): string | undefined {
  if (typeof value === 'string' && SHOPIFY_SHOP_SYNTAX.test(value)) return value;
  issues.push(`${at} must be the shop's permanent domain in lower case, like "my-shop.myshopify.com" (got ${describeValue(value)})`);
  return undefined;
}

/** A website record whose token is readable but not enumerable (kept out of logs and JSON); empty when a source holds the key. */
export function relayedWebsite(id: string, token: string, shop?: string, source?: SourceSettings): RelayedWebsite {
  const website = { id, ...(shop === undefined ? {} : { shop }), ...(source === undefined ? {} : { source }) } as RelayedWebsite;
  Object.defineProperty(website, 'token', { value: token, enumerable: false });
  return Object.freeze(website);
}
