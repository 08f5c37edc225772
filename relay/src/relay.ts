import {
  errorAnswer,
  freshnessHeaders,
  notModifiedAnswer,
  preflightAnswer,
  reportAnswer,
  retryAfterSeconds,
  type AnswerContext,
} from './answers.js';
import { CONFIG_LIMITS, parseRelayConfig, type RelayConfig } from './config.js';
import { CorsPolicy, RELAY_METHODS } from './cors.js';
import { matchesIfNoneMatch } from './etag.js';
import { HourlyBudget } from './hourly-budget.js';
import { Redactor } from './redactor.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, type FetchFunction } from './upstream.js';
import { WebsiteCache } from './website-cache.js';

/** The service's path, so the widget talks to the relay exactly as it would to the service. */
export const REALTIME_PATH = '/api/v1/realtime';

/** A standard Fetch API handler: runs on Node (through srvx), edge runtimes and serverless platforms. */
export type RelayHandler = (request: Request) => Promise<Response>;

export interface RelayOptions {
  /** Validated again here, so a hand-written object gets the same clear errors as a file. */
  readonly config: RelayConfig;
  /** How the relay reaches the service; the global `fetch` when absent. */
  readonly fetch?: FetchFunction;
  /** Milliseconds; must never go back. A monotonic clock when absent, so a system clock change cannot freeze or flush the cache. */
  readonly now?: () => number;
  /** Uniform in [0, 1), for back-off jitter; `Math.random` when absent. */
  readonly random?: () => number;
  /** One line per upstream failure, recovery or spent budget, already free of tokens; `console.warn` when absent. */
  readonly log?: (line: string) => void;
  readonly upstreamTimeoutMs?: number;
}

const SPEC_MESSAGES = Object.freeze({ websiteIdRequired: 'websiteId is required', websiteNotFound: 'Website not found' });

/**
 * Creates the relay: answers `GET /api/v1/realtime?websiteId=…` for the configured websites
 * from one upstream request per website per interval, holding the tokens server-side.
 * Throws `RelayConfigError` for a bad config; the handler itself never throws.
 */
export function createRelay(options: RelayOptions): RelayHandler {
  const config = parseRelayConfig(options.config, { source: 'createRelay options' });
  const now = options.now ?? monotonicNow;
  const redactor = new Redactor(config.websites.map((website) => website.token));
  const writeLine = options.log ?? ((line: string) => console.warn(line));
  const log = (line: string) => {
    try {
      writeLine(redactor.redact(`[live-visitors-relay] ${line}`));
    } catch {
      // A broken logger must not turn a served answer into a failure.
    }
  };
  const cors = new CorsPolicy(config.allowOrigins);
  const budget = new HourlyBudget(config.hourlyBudget);
  const caches = new Map(
    config.websites.map((website) => [
      website.id,
      new WebsiteCache({
        website,
        config,
        budget,
        fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
        now,
        random: options.random ?? Math.random,
        upstreamTimeoutMs: options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
        redactor,
        log,
      }),
    ]),
  );

  async function answer(request: Request, context: AnswerContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== REALTIME_PATH) {
      return errorAnswer(404, `Not found: the relay answers GET ${REALTIME_PATH}?websiteId=…`, context);
    }
    const method = request.method.toUpperCase();
    if (method === 'OPTIONS') return preflight(request, context);
    if (method !== 'GET' && method !== 'HEAD') {
      return errorAnswer(405, `Method ${method} is not allowed on ${REALTIME_PATH}. Allowed: ${RELAY_METHODS.join(', ')}`, context, {
        Allow: RELAY_METHODS.join(', '),
      });
    }
    // Any Authorization header is ignored: the relay's own token is the only credential upstream.
    const websiteId = readWebsiteId(url.searchParams);
    if ('error' in websiteId) return errorAnswer(400, websiteId.error, context);
    // Unknown ids never reach the service: the relay is no open proxy.
    const cache = caches.get(websiteId.value);
    if (!cache) return errorAnswer(404, SPEC_MESSAGES.websiteNotFound, context);

    const result = await cache.current();
    const nowMs = now();
    if (result.kind === 'unavailable') {
      return errorAnswer(result.status, result.message, context, { 'Retry-After': retryAfterSeconds(result.retryAtMs, nowMs) });
    }
    const caching = freshnessHeaders(nowMs - result.answer.receivedAtMs, config);
    return matchesIfNoneMatch(request.headers.get('if-none-match'), result.answer.etag)
      ? notModifiedAnswer(result.answer, caching, context)
      : reportAnswer(result.answer, caching, context);
  }

  function preflight(request: Request, context: AnswerContext): Response {
    const origin = request.headers.get('origin');
    if (origin === null) return preflightAnswer({ Allow: RELAY_METHODS.join(', ') });
    if (!cors.isAllowed(origin)) {
      return errorAnswer(403, 'This origin is not in the relay\'s allowOrigins: add it to the relay config to let its pages read the count', context);
    }
    return preflightAnswer(cors.preflightHeaders(origin));
  }

  return async (request) => {
    let context: AnswerContext = { cors: {}, withoutBody: false };
    try {
      context = { cors: cors.headersFor(request.headers.get('origin')), withoutBody: request.method.toUpperCase() === 'HEAD' };
      return await answer(request, context);
    } catch (error) {
      log(`unexpected error, answered 500: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      return errorAnswer(500, 'The relay failed unexpectedly; try again later', context);
    }
  };
}

type WebsiteIdCheck = { readonly value: string } | { readonly error: string };

function readWebsiteId(parameters: URLSearchParams): WebsiteIdCheck {
  const values = parameters.getAll('websiteId');
  if (values.length > 1) return { error: 'websiteId must be given only once' };
  const value = values[0];
  // An empty value counts as missing, as at the service: `?websiteId=` gets "websiteId is required".
  if (value === undefined || value === '') return { error: SPEC_MESSAGES.websiteIdRequired };
  if (value.length > CONFIG_LIMITS.maxIdLength) return { error: `websiteId must be at most ${CONFIG_LIMITS.maxIdLength} characters` };
  return { value };
}

function monotonicNow(): number {
  return performance.timeOrigin + performance.now();
}
