import rules from './contract/rules.json' with { type: 'json' };
import { DEV_MODE } from './dev-mode.js';
import { finiteOr } from './finite.js';
import type { FeedKey } from './realtime/feed.js';

// The attributes' table (src/attributes.ts) takes its defaults from here, so a property reads what the configuration uses.
export const DEFAULT_INTERVAL_SECONDS = 60;
/** Faster polling buys nothing (the service counts a 3-minute window) and burns the plan's quota. */
export const MIN_INTERVAL_SECONDS = rules.elementMinIntervalSeconds;
const MAX_INTERVAL_SECONDS = 24 * 60 * 60;
export const DEFAULT_MAX_AGE_SECONDS = 600;
const MAX_MAX_AGE_SECONDS = 7 * 24 * 60 * 60;
export const DEFAULT_MIN = 1;
/** A count must survive one normal poll cycle including its timeout, or it would blink out. */
const MAX_AGE_SLACK_SECONDS = 10;

/** The element's attributes, as Lit hands them over (any of them may be missing or junk). */
export interface WidgetAttributes {
  websiteId?: string | null | undefined;
  token?: string | null | undefined;
  apiBase?: string | null | undefined;
  interval?: number | null | undefined;
  maxAge?: number | null | undefined;
  min?: number | null | undefined;
}

export interface WidgetConfig {
  key: FeedKey;
  intervalMs: number;
  maxAgeMs: number;
  /** Smallest count worth showing; never below 1, so "0 people" cannot appear. */
  min: number;
}

/** What is wrong with the attributes: the message naming the attribute to fix. */
export type ConfigProblem = string;

/**
 * A configuration, or its problem (as `parseReport` returns a report or its reason): no wrapper
 * object for every update of every element to build and unpack.
 */
export type ConfigResult = WidgetConfig | ConfigProblem;

/** Whether the attributes had a problem instead of a configuration. */
export const isProblem = (result: ConfigResult): result is ConfigProblem => typeof result === 'string';

/** Turns attributes into a validated configuration, or a message naming the attribute to fix. */
export function resolveConfig(
  attributes: WidgetAttributes,
  // `globalThis.location`: a bare `location` would throw on a server.
  pageUrl: string | undefined = globalThis.location?.href,
): ConfigResult {
  const websiteId = attributes.websiteId?.trim() ?? '';
  if (!websiteId) return DEV_MODE ? "set website-id to your website's ID." : 'website-id';

  const token = attributes.token?.trim() || undefined;
  if (token && !/^[\x21-\x7e]+$/.test(token)) {
    return DEV_MODE ? 'token has a space or a character a header cannot carry: paste only the token.' : 'token';
  }

  const apiBase = resolveApiBase(attributes.apiBase, pageUrl);
  if (apiBase === null) {
    return DEV_MODE ? "api-base must be an http(s) URL, a /path, or left out for this page's origin." : 'api-base';
  }

  const intervalSeconds = clamp(finiteOr(attributes.interval, DEFAULT_INTERVAL_SECONDS), MIN_INTERVAL_SECONDS, MAX_INTERVAL_SECONDS);
  const maxAgeSeconds = clamp(
    finiteOr(attributes.maxAge, DEFAULT_MAX_AGE_SECONDS),
    intervalSeconds + MAX_AGE_SLACK_SECONDS,
    MAX_MAX_AGE_SECONDS,
  );
  const min = Math.max(1, Math.ceil(finiteOr(attributes.min, DEFAULT_MIN)));
  return {
    key: { apiBase, websiteId, token },
    intervalMs: intervalSeconds * 1000,
    maxAgeMs: maxAgeSeconds * 1000,
    min,
  };
}

/**
 * Origin plus optional path prefix, without a trailing slash; null when unusable. An absolute
 * http(s) URL (protocol-relative too), or a path on this page's origin (`/relay`), never another's:
 * `analytics.example.com` without a scheme is refused rather than read as a path on the shop.
 */
export function resolveApiBase(value: string | null | undefined, pageUrl: string | undefined): string | null {
  const text = value?.trim() || '/';
  if (!/^(https?:)?\//i.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text, pageUrl);
  } catch {
    return null;
  }
  // A path resolves against this page, which may be a file: page.
  if (!/^https?:$/.test(url.protocol) || url.username || url.password) return null;
  // Only `//host` and `https://host` name a host: a path that the URL parser reads as one
  // (`/\host`, a tab between the slashes) would send the token there.
  if (!/^(https?:)?\/\//i.test(text) && url.origin !== new URL(pageUrl!).origin) return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
