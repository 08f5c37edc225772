import { FastResponse } from 'srvx';
import type { ErrorBody } from '../../src/contract/errors.js';
import { retryAfterSeconds } from '../../src/contract/retry-after.js';
import rules from '../../src/contract/rules.json' with { type: 'json' };
import type { RelayConfig } from './config.js';
import type { SharedAnswer } from './store/relay-store.js';

/**
 * The relay's answers on the realtime path and their errors are built here, so the cross-cutting
 * headers (content type, caching, CORS) cannot be forgotten by one path. The cold routes (the owner
 * page, the element's files, the Shopify app, the operator's routes) build their own, with headers
 * of their own.
 *
 * `FastResponse` is srvx's per-runtime Response: on Node a lazy one that its adapter writes
 * without building a full undici Response (about 50 times cheaper, which is most of the cost
 * of a cached answer); on edge runtimes the native Response. It is a real `Response` either way.
 */
const Response = FastResponse;

export interface ResponseContext {
  /** CORS headers for the asking origin. */
  readonly cors: Readonly<Record<string, string>>;
  /** HEAD: the same headers, no body. */
  readonly withoutBody: boolean;
}

const COMMON_HEADERS = { 'X-Content-Type-Options': 'nosniff' };

/**
 * `max-age` is an answer's normal fresh life, one interval from the upstream fetch, and `Age`
 * says how much of it is gone (RFC 9111 §4.2): a CDN in front refreshes exactly when the relay
 * does. An answer served on while the service fails is older than that, and says so: caches
 * (and the widget) see it as stale. `stale-if-error` and `stale-while-revalidate` never let a
 * cache serve it past `maxStale` in all.
 *
 * No `s-maxage`: for shared caches it carries `proxy-revalidate` (RFC 9111 §5.2.2.10), which
 * forbids the very stale serving the two extensions allow, and Vercel answers browsers with
 * `max-age=0` in its place, so the widget would take every answer for stale.
 */
export function cacheControl(config: Pick<RelayConfig, 'interval' | 'maxStale'>): string {
  const maxAge = Math.min(config.interval, config.maxStale);
  const staleIfError = config.maxStale - maxAge;
  const staleWhileRevalidate = Math.min(config.interval, staleIfError);
  return `public, max-age=${maxAge}, stale-while-revalidate=${staleWhileRevalidate}, stale-if-error=${staleIfError}`;
}

/**
 * `Cache-Control`, the same directives again as `CDN-Cache-Control` (RFC 9213), and `Age`;
 * `directives` is `cacheControl(config)`, made once per relay.
 *
 * A CDN that knows `CDN-Cache-Control` (Cloudflare and Vercel among them) caches by it alone,
 * so the answer stays cacheable for the interval wherever a platform or a framework rewrites
 * `Cache-Control` on its way to browsers, and where a platform caches function answers only
 * on `s-maxage` or a CDN header (Vercel). Others (nginx, Varnish) ignore it and read
 * `Cache-Control`. The field is the same for every cache, so none of them can disagree.
 *
 * `Age` is rounded down: a cache that honours it keeps the answer until the relay's own copy has
 * expired (up to a second longer), never shorter, so its refresh finds the relay due to ask the
 * service again rather than handing back the same answer.
 */
export function freshnessHeaders(ageMs: number, directives: string): Record<string, string> {
  return {
    'Cache-Control': directives,
    'CDN-Cache-Control': directives,
    Age: String(ageSeconds(ageMs)),
  };
}

/** RFC 9111 §1.2.2: a cache sends 2147483648 for any age it cannot represent. */
const MAX_AGE_SECONDS = rules.maxAgeSeconds;

/** Whole seconds, from 0 (a clock a little behind the fetching instance's) to the RFC's cap. */
function ageSeconds(ageMs: number): number {
  const seconds = Math.floor(ageMs / 1000);
  return Number.isNaN(seconds) ? 0 : Math.min(MAX_AGE_SECONDS, Math.max(0, seconds));
}

function reportHeaders(answer: SharedAnswer, freshness: Record<string, string>, context: ResponseContext): Record<string, string> {
  return { ...COMMON_HEADERS, ...context.cors, 'Content-Type': 'application/json', ...freshness, ETag: answer.etag };
}

/**
 * A relay's fresh answers, as Responses: within one second every browser of an origin gets the
 * same answer with the same headers, so they are made once (the relay's hot path, measured by
 * `npm run bench`) and shared, never changed.
 */
export class ReportResponses {
  readonly #directives: string;
  #answer: SharedAnswer | undefined;
  #ageSeconds = -1;
  #cors: ResponseContext['cors'] | undefined;
  #headers: Record<string, string> = {};

  /** `directives` is `cacheControl(config)`. */
  constructor(directives: string) {
    this.#directives = directives;
  }

  response(answer: SharedAnswer, ageMs: number, context: ResponseContext): Response {
    const age = ageSeconds(ageMs);
    if (answer !== this.#answer || age !== this.#ageSeconds || context.cors !== this.#cors) {
      this.#headers = reportHeaders(answer, freshnessHeaders(ageMs, this.#directives), context);
      this.#answer = answer;
      this.#ageSeconds = age;
      this.#cors = context.cors;
    }
    return new Response(context.withoutBody ? null : answer.body, { status: 200, headers: this.#headers });
  }
}

/** RFC 9110 §15.4.5: a 304 repeats the headers a 200 would have sent, except the body's. */
export function notModifiedResponse(answer: SharedAnswer, freshness: Record<string, string>, context: ResponseContext): Response {
  return new Response(null, {
    status: 304,
    headers: { ...COMMON_HEADERS, ...context.cors, ...freshness, ETag: answer.etag },
  });
}

/** The error body of the service and the emulator: `{ "error": "<message>" }`. Never cached, by any cache. */
export function errorResponse(status: number, message: string, context: ResponseContext, headers: Record<string, string> = {}): Response {
  const body: ErrorBody = { error: message };
  return new Response(context.withoutBody ? null : JSON.stringify(body), {
    status,
    headers: {
      ...COMMON_HEADERS,
      ...context.cors,
      ...headers,
      'Content-Type': 'application/json',
      // Both: a CDN-Cache-Control a platform adds to the route must not make an error cacheable.
      'Cache-Control': 'no-store',
      'CDN-Cache-Control': 'no-store',
    },
  });
}

/**
 * `Retry-After` for a time to come back: whole seconds from 1 to an hour, whatever time it is
 * given. No wait the relay asks for is longer than its longest: an hour, or an interval when that
 * is longer (at most an hour too).
 */
export function retryAfterHeader(retryAtMs: number, nowMs: number): string {
  return String(retryAfterSeconds(retryAtMs, nowMs, rules.relayMaxRetryAfterSeconds));
}

export function preflightResponse(headers: Record<string, string>): Response {
  return new Response(null, { status: 204, headers: { ...COMMON_HEADERS, ...headers } });
}

/**
 * A strong ETag for a body: the first 64 bits of its SHA-256, through Web Crypto so the
 * handler runs unchanged on edge runtimes. Computed once per upstream answer, not per request.
 */
export async function etagFor(body: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body));
  const hex = [...new Uint8Array(digest, 0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `"${hex}"`;
}

/**
 * Whether `If-None-Match` names this representation. RFC 9110 §13.1.2: weak comparison
 * (a `W/` prefix is ignored), a comma-separated list, or `*` for any current representation.
 */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (header === null) return false;
  // Only spaces and tabs are white space here (RFC 9110 §5.6.3), not a no-break space as `trim` would have it.
  const withoutSpaces = (text: string) => text.replace(/^[ \t]+|[ \t]+$/g, '');
  const wanted = withoutSpaces(header);
  if (wanted === '*') return true;
  const opaque = (tag: string) => withoutSpaces(tag).replace(/^W\//, '');
  // Bounded: a header of thousands of tags is someone else's problem, not a reason to loop long.
  return wanted.split(',', 64).some((tag) => opaque(tag) === opaque(etag));
}
