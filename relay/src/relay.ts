import { FastURL } from 'srvx';
import { CorsPolicy } from '../../server-kit/cors.js';
import { RollingHourLimit } from '../../server-kit/rolling-hour.js';
import { SPEC_MESSAGES } from '../../src/contract/errors.js';
import { MAX_IDENTIFIER_LENGTH, REALTIME_PATH, readWebsiteIdParameter, type WebsiteIdParameter } from '../../src/contract/request.js';
import rules from '../../src/contract/rules.json' with { type: 'json' };
import { systemTimers, type Timers } from '../../src/contract/timers.js';
import { parseRelayConfig, RelayConfigError, type RelayConfigInput, type RelayedWebsite } from './config.js';
import { ELEMENT_FILES_PATH, ElementFiles } from './element-files/element-files.js';
import { type OperatorRoutes, operatorRoutes } from './metrics/operator-routes.js';
import { RelayMetrics } from './metrics/relay-metrics.js';
import { timedStore } from './metrics/timed-store.js';
import { Redactor } from './redaction.js';
import { clientAddressReader } from './registry/client-address.js';
import { OwnerPage } from './registry/owner-page.js';
import { answerRegistration, isRegistrationPath } from './registry/registration-api.js';
import type { RegistrationStore } from './registry/registration-store.js';
import type { Registrations } from './registry/registrations.js';
import { SelfServe } from './registry/self-serve.js';
import {
  cacheControl,
  errorResponse,
  freshnessHeaders,
  matchesIfNoneMatch,
  notModifiedResponse,
  preflightResponse,
  ReportResponses,
  type ResponseContext,
  retryAfterHeader,
} from './responses.js';
import { createShopifyApp } from './shopify-app/shopify-app.js';
import { AppProxyVerifier, answeredAs } from './shopify-app-proxy.js';
import { fetchWebsiteReport } from './sources/fetch-website-report.js';
import { guardedFetch, RefusalLog, SourceAddressPolicy } from './sources/source-address-policy.js';
import { MemoryStore } from './store/memory-store.js';
import type { RelayStore } from './store/relay-store.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, type FetchFunction } from './upstream.js';
import { type WebsiteAnswer, WebsiteCache } from './website-cache.js';

/**
 * A standard Fetch API handler: runs on Node (through srvx), edge runtimes and serverless
 * platforms. A fresh answer comes back at once, without a promise; the rest asynchronously.
 */
export type RelayHandler = ((request: Request) => Response | Promise<Response>) & {
  /**
   * The websites owners registered at run time (`selfServe`), for the Shopify app and tests; `ready`
   * settles once they were first read; `size` counts the ones this instance serves. Null when the
   * relay serves only its config's.
   */
  readonly registrations: (Registrations & { readonly ready: Promise<void>; readonly size: number }) | null;
};

export interface RelayOptions {
  /** Validated again here, so a hand-written object gets the same clear errors as a file. */
  readonly config: RelayConfigInput;
  /** How the relay reaches the service; the global `fetch` when absent. */
  readonly fetch?: FetchFunction;
  /** Milliseconds; must never go back. A monotonic clock when absent, so a system clock change cannot freeze or flush the cache. */
  readonly now?: () => number;
  /** Uniform in [0, 1), for back-off jitter; `Math.random` when absent. */
  readonly random?: () => number;
  /** One line per upstream failure, recovery or spent budget, already free of tokens; `console.warn` when absent. */
  readonly log?: (line: string) => void;
  readonly upstreamTimeoutMs?: number;
  /** Every wait of the relay (on another instance, on the store); the system's timers when absent. Moved with `now` by tests. */
  readonly timers?: Pick<Timers, 'after'>;
  /**
   * What a fleet of instances shares (answers, the claim to ask upstream, the hourly budget).
   * This process's memory when absent, which is right for one instance. Required when the
   * config names a shared store: `createRelayStore` (from `live-visitors-relay/node`) makes the
   * Redis one, the `./cloudflare` entry the Durable Object one.
   */
  readonly store?: RelayStore;
  /** Names this instance in the store's claims; a random id when absent. */
  readonly instanceId?: string;
  /** Milliseconds since the epoch, to judge the age of Shopify's signed App Proxy requests; `Date.now` when absent. */
  readonly wallClock?: () => number;
  /**
   * Where websites registered at run time live (`selfServe`): the Redis one with a Redis store, a
   * file on one Node instance (`createRegistrationStore` from `live-visitors-relay/node` makes
   * either), the Durable Object one on Workers. Memory when absent, if the config allows it.
   */
  readonly registrationStore?: RegistrationStore;
  /**
   * The address a request came from, for the per-client limit on registrations; when absent, the
   * config's `clientAddressHeader`, else srvx's `request.ip`. On Workers: `cf-connecting-ip`.
   */
  readonly clientAddress?: (request: Request) => string | undefined;
}

/** The methods the relay answers; OPTIONS only as a CORS preflight. */
const RELAY_METHODS = 'GET, HEAD, OPTIONS';

/**
 * Creates the relay: answers `GET /api/v1/realtime?websiteId=…` for the configured websites
 * from one upstream request per website per interval, holding the tokens server-side.
 * Throws `RelayConfigError` for a bad config; the handler itself never throws.
 */
export function createRelay(options: RelayOptions): RelayHandler {
  const config = parseRelayConfig(options.config, { source: 'createRelay options' });
  const now = options.now ?? monotonicNow;
  const tokens = config.websites.map((website) => website.token);
  // Every secret, in every encoding a service or a library could echo it in.
  const redactor = new Redactor([...tokens, config.shopifyAppSecret, ...config.encryptionKeys, config.metricsToken]);
  // A website that names its Shopify shop is served only to requests its App Proxy signed.
  const appProxy = config.shopifyAppSecret === null ? null : new AppProxyVerifier(config.shopifyAppSecret, options.wallClock);
  const websiteOfShop = new Map(config.websites.flatMap((website) => (website.shop === undefined ? [] : [[website.shop, website.id]])));
  const shopWebsites = new Set(websiteOfShop.values());
  const writeLine = options.log ?? ((line: string) => console.warn(line));
  const log = (line: string) => {
    try {
      writeLine(redactor.clean(`[live-visitors-relay] ${line}`));
    } catch {
      // A broken logger must not turn a served answer into a failure.
    }
  };
  const corsOptions = {
    exposeHeaders: ['Retry-After', 'ETag', 'Age'],
    allowMethods: ['GET', 'HEAD'],
    // The widget sends neither, so it needs no preflight; a page that still sets a token keeps working (the header is ignored).
    allowHeaders: ['Authorization', 'If-None-Match'],
  };
  const cors = new CorsPolicy({ ...corsOptions, allowOrigins: config.allowOrigins });
  if (!options.store && config.store !== 'memory') {
    throw new RelayConfigError('createRelay options', [
      'store names a shared store: pass its RelayStore as the store option (createRelayStore(config) from live-visitors-relay/node makes the Redis one)',
    ]);
  }
  // Counted only when the operator can read the counts (`metricsToken`): otherwise no wrapper, no hook.
  const metrics: RelayMetrics | null =
    config.metricsToken === null
      ? null
      : new RelayMetrics({
          configured: config.websites.length,
          registered: (): number => selfServe?.registry.size ?? 0,
          intervalSeconds: config.interval,
          now,
        });
  const timed = <T extends object>(seam: T, name: string): T => (metrics ? timedStore(seam, name, metrics) : seam);
  const store = timed(options.store ?? new MemoryStore(now), 'relay');
  const directives = cacheControl(config);
  const reports = new ReportResponses(directives);
  const holder = options.instanceId ?? crypto.randomUUID();
  const storeDownBudget = new RollingHourLimit(config.storeDownBudget);
  // Every request goes where the operator chose; on Node, startRelayServer's fetch also checks at connect time.
  const fetch: FetchFunction = guardedFetch(
    options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    SourceAddressPolicy.of(config),
    new RefusalLog(log),
  );
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  /** A website's cache; a registered website's redactor knows its own token besides the relay's secrets. */
  const cacheFor = (website: RelayedWebsite, websiteStore: RelayStore, websiteRedactor = redactor) =>
    new WebsiteCache({
      website,
      config,
      store: websiteStore,
      holder,
      storeDownBudget,
      fetch,
      now,
      timers: options.timers ?? systemTimers,
      random: options.random ?? Math.random,
      upstreamTimeoutMs,
      redactor: websiteRedactor,
      log,
      metrics: metrics ?? undefined,
    });
  const caches = new Map(config.websites.map((website) => [website.id, cacheFor(website, store)]));
  const selfServe = config.selfServe
    ? new SelfServe({
        config,
        store,
        registrationStore: options.registrationStore && timed(options.registrationStore, 'registrations'),
        cacheFor: (website, websiteStore) => cacheFor(website, websiteStore, withSecret(website.token)),
        fetchReport: async (website) => {
          // The one 'fetch this website's report' the caches call too: the contract's service or the website's source.
          const result = await fetchWebsiteReport({
            upstream: config.upstream,
            website,
            fetch,
            now,
            timeoutMs: upstreamTimeoutMs,
            redactor: withSecret(website.token),
          });
          metrics?.upstreamAnswered('report' in result ? 'report' : result.failure.kind);
          return result;
        },
        cors: corsOptions,
        now,
        log,
      })
    : null;
  // The public Shopify app: its admin page, settings API and webhooks, on top of the registrations.
  const shopifyApp =
    selfServe && config.shopifyApp && config.shopifyAppSecret !== null
      ? createShopifyApp({
          clientId: config.shopifyApp.clientId,
          clientSecret: config.shopifyAppSecret,
          registrations: selfServe.registry,
          usedSessionTokens: selfServe.registrationStore,
          cacheOf: (websiteId) => selfServe.served(websiteId)?.cache,
          wallClock: options.wallClock,
        })
      : null;
  const clientAddress = options.clientAddress ?? clientAddressReader(config.clientAddressHeader);
  // The element's own files, so the snippets the relay hands out need no CDN (unless the operator names one).
  const elementFiles = new ElementFiles();
  const ownerPage = selfServe ? new OwnerPage(config.scriptUrl ?? elementFiles.scriptPath()) : null;
  const operator: OperatorRoutes = operatorRoutes({
    metrics,
    metricsToken: config.metricsToken,
    store,
    timers: options.timers ?? systemTimers,
  });
  function withSecret(token: string): Redactor {
    // The relay's secrets, then this website's token, whose pattern is compiled on first use only.
    return redactor.and(new Redactor([token]));
  }

  // Hand-written, not on Hono: this is the cached path `npm run bench` measures, kept free of routing
  // work and, for a fresh answer, of any promise. Each saving here is measured by the bench.
  function answer(request: Request, context: ResponseContext): Response | Promise<Response> {
    const method = request.method;
    const plainId = method === 'GET' || method === 'HEAD' ? plainWebsiteId(request.url) : undefined;
    if (plainId !== undefined) return serve(plainId, request, context);
    const read = readRequest(request, context);
    if (!Array.isArray(read)) return read;
    const [websiteId, query] = read;
    if ('error' in websiteId) return errorResponse(400, websiteId.error, context);
    // A signed request never has the plain form: Shopify adds its parameters after websiteId.
    if (appProxy && query.has('signature')) return servedToShop(websiteId.value, query, request, context);
    return serve(websiteId.value, request, context);
  }

  function serve(websiteId: string, request: Request, context: ResponseContext, signedShop?: string): Response | Promise<Response> {
    const cache = caches.get(websiteId);
    if (!cache) return selfServe ? serveRegistered(selfServe, websiteId, request, context, signedShop) : notFound(context);
    if (signedShop === undefined && shopWebsites.has(websiteId)) return unsigned(context);
    return serveFrom(cache, request, context);
  }

  /** A website an owner registered: served as a configured one, with its own origins; a record that does not decrypt is a 502. */
  function serveRegistered(
    { registry }: SelfServe,
    websiteId: string,
    request: Request,
    context: ResponseContext,
    signedShop: string | undefined,
  ): Response | Promise<Response> {
    // Once per period a request waits for the look at the store: new and removed registrations of the fleet.
    if (registry.isSyncDue) return registry.sync().then(() => serveLooked(websiteId, request, context, signedShop));
    return serveLooked(websiteId, request, context, signedShop);
  }

  function serveLooked(
    websiteId: string,
    request: Request,
    context: ResponseContext,
    signedShop: string | undefined,
  ): Response | Promise<Response> {
    const served = selfServe!.served(websiteId);
    if (!served) return notFound(context);
    if (served.shop !== null && signedShop === undefined) return unsigned(context);
    const own = { ...context, cors: originPolicy(websiteId).headersFor(request.headers.get('origin')) };
    if (!served.cache) {
      return errorResponse(
        502,
        `This website's registration cannot be read by the relay (${served.unreadable}); its owner can register it again`,
        own,
      );
    }
    return serveFrom(served.cache, request, own);
  }

  function serveFrom(cache: WebsiteCache, request: Request, context: ResponseContext): Response | Promise<Response> {
    const fresh = cache.freshAnswer(now());
    if (fresh) return respond(request, fresh, context);
    return cache.current().then((result) => respond(request, result, context));
  }

  /** A request Shopify's App Proxy forwarded: served only when signed, recently, and only the signed shop's website. */
  async function servedToShop(websiteId: string, query: URLSearchParams, request: Request, context: ResponseContext): Promise<Response> {
    const verdict = await appProxy!.verify(query);
    if (!verdict.signed) return errorResponse(401, verdict.message, context);
    const own = websiteOfShop.get(verdict.shop) ?? (await selfServe?.registry.websiteOfShop(verdict.shop)) ?? undefined;
    if (own === undefined) return errorResponse(404, `No website is configured for the shop ${verdict.shop}`, context);
    // A block without a website ID asks by the shop's own domain: its website, under that name.
    if (websiteId === verdict.shop) return answeredAs(await serve(own, request, context, verdict.shop), websiteId);
    if (own !== websiteId) return errorResponse(401, `The shop ${verdict.shop} may read only its own website`, context);
    return serve(websiteId, request, context, verdict.shop);
  }

  /** Any other request, read in full: path, method (and preflight), then the query as the service reads it. */
  function readRequest(request: Request, context: ResponseContext): [WebsiteIdParameter, URLSearchParams] | Response | Promise<Response> {
    // srvx's URL splits path and query without a full WHATWG parse; on other runtimes it is the native URL.
    const url = new FastURL(request.url);
    if (url.pathname !== REALTIME_PATH) return otherPath(url.pathname, request, context);
    const method = request.method.toUpperCase();
    if (method === 'OPTIONS') return preflight(request, readWebsiteIdParameter(url.searchParams), context);
    if (method !== 'GET' && method !== 'HEAD') {
      return errorResponse(405, `Method ${method} is not allowed on ${REALTIME_PATH}. Allowed: ${RELAY_METHODS}`, context, {
        Allow: RELAY_METHODS,
      });
    }
    // Any Authorization header is ignored: the relay's own token is the only credential upstream.
    return [readWebsiteIdParameter(url.searchParams), url.searchParams];
  }

  /**
   * The element's files (any origin), the operator's routes; with `selfServe`, the owner page and
   * the registration API (same origin only: no CORS headers); else a 404 naming the one path.
   */
  function otherPath(pathname: string, request: Request, context: ResponseContext): Response | Promise<Response> {
    if (pathname.startsWith(ELEMENT_FILES_PATH)) return elementFiles.answer(pathname, request);
    const forOperator = operator(pathname, request, context);
    if (forOperator) return forOperator;
    if (selfServe && isRegistrationPath(pathname)) {
      const requester = clientAddress(request) ?? 'unknown';
      const answered = answerRegistration(selfServe.registry, request, pathname, requester, { cors: {}, withoutBody: context.withoutBody });
      return metrics ? answered.then((response) => counted(request.method, response)) : answered;
    }
    if (ownerPage && OwnerPage.isPath(pathname)) return ownerPage.answer(pathname, request);
    const forShopifyApp = shopifyApp?.(request, pathname);
    if (forShopifyApp) return forShopifyApp;
    return errorResponse(404, `Not found: the relay answers GET ${REALTIME_PATH}?websiteId=…`, context);
  }

  function counted(method: string, response: Response): Response {
    metrics?.registrationAnswered(method.toUpperCase(), response.status);
    return response;
  }

  function notFound(context: ResponseContext): Response {
    // Unknown ids never reach the service: the relay is no open proxy.
    return errorResponse(404, SPEC_MESSAGES.websiteNotFound, context);
  }

  function unsigned(context: ResponseContext): Response {
    return errorResponse(401, rules.messageUnsignedAppProxy, context);
  }

  function respond(request: Request, result: WebsiteAnswer, context: ResponseContext): Response {
    const nowMs = now();
    if (result.kind === 'unavailable') {
      return errorResponse(result.status, result.message, context, { 'Retry-After': retryAfterHeader(result.retryAtMs, nowMs) });
    }
    const ageMs = nowMs - result.answer.fetchedAtMs;
    return matchesIfNoneMatch(request.headers.get('if-none-match'), result.answer.etag)
      ? notModifiedResponse(result.answer, freshnessHeaders(ageMs, directives), context)
      : reports.response(result.answer, ageMs, context);
  }

  /**
   * The origins that may read a website's count: a registered website's own (its owner's choice),
   * else the config's. One answer for the GET and for its preflight.
   */
  function originPolicy(websiteId: string | undefined): CorsPolicy {
    return (websiteId !== undefined && selfServe?.served(websiteId)?.cors) || cors;
  }

  function preflight(request: Request, websiteId: WebsiteIdParameter, context: ResponseContext): Response {
    const origin = request.headers.get('origin');
    if (origin === null) return preflightResponse({ Allow: RELAY_METHODS });
    const policy = originPolicy('value' in websiteId ? websiteId.value : undefined);
    if (!policy.isAllowed(origin)) {
      return errorResponse(
        403,
        "This origin may not read this website's count: add it to the relay config's allowOrigins, or to the origins the website was registered with",
        context,
      );
    }
    return preflightResponse(policy.preflightHeaders(origin));
  }

  function failed(error: unknown, context: ResponseContext): Response {
    log(`unexpected error, answered 500: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    return errorResponse(500, 'The relay failed unexpectedly; try again later', context);
  }

  const handler = (request: Request): Response | Promise<Response> => {
    let context: ResponseContext = { cors: {}, withoutBody: false };
    try {
      context = { cors: cors.headersFor(request.headers.get('origin')), withoutBody: request.method === 'HEAD' };
      const response = answer(request, context);
      return response instanceof Promise ? response.catch((error: unknown) => failed(error, context)) : response;
    } catch (error) {
      return failed(error, context);
    }
  };
  return Object.assign(handler, { registrations: selfServe?.registry ?? null });
}

function monotonicNow(): number {
  return performance.timeOrigin + performance.now();
}

/** `…/api/v1/realtime?websiteId=` and a value whose characters need no decoding, as the widget sends it. */
const PLAIN_REQUEST = new RegExp(
  `^[a-z]+://[^/?#]*${REALTIME_PATH.replaceAll('/', '\\/')}\\?websiteId=([\\w.~-]{1,${MAX_IDENTIFIER_LENGTH}})$`,
);

/**
 * The website id of the one request shape browsers send, read off the URL string without parsing
 * it; undefined for anything else, which is then read in full (so the two can never disagree).
 */
function plainWebsiteId(url: string): string | undefined {
  return PLAIN_REQUEST.exec(url)?.[1];
}
