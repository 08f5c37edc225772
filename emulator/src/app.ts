import { Hono } from 'hono';
import { except } from 'hono/combine';
import { cors } from 'hono/cors';
import { createMiddleware } from 'hono/factory';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { readCappedBytes } from '../../server-kit/capped-body.js';
import { PREFLIGHT_MAX_AGE_SECONDS } from '../../server-kit/cors.js';
import { REALTIME_PATH } from '../../src/contract/request.js';
import { CONTROL_PATH_PREFIX, guardControlApi } from './endpoints/control.js';
import { errorResponse } from './endpoints/error-response.js';
import { applyFault, type FaultSwitch, setFault } from './endpoints/faults.js';
import { recordPageview } from './endpoints/pageviews.js';
import type { RealtimeEndpoint } from './endpoints/realtime.js';
import { setTraffic, type TrafficControl } from './endpoints/traffic.js';
import { SourceStandIns, standInSources } from './sources/stand-ins.js';
import type { VisitorWindow } from './visitor-window.js';

/** Pageview ingestion: not in the spec, which leaves out how pageviews arrive. */
export const PAGEVIEWS_PATH = '/api/v1/pageviews';

/** Largest request body read, by the pageview and control endpoints. */
const MAX_BODY_BYTES = 4 * 1024;

/** What the realtime answers carry beyond the CORS-safelisted headers: the plan limit. */
const EXPOSED_HEADERS = ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** A request's parsed JSON body, set by `jsonBody`. */
type EmulatorEnv = { Variables: { body: unknown } };

/** What the control API reads and resets; the emulator itself, seen from here without importing it. */
interface ControlledEmulator {
  /** What `GET /__emulator/state` answers. */
  state(): object;
  reset(): void;
}

export interface AppParts {
  readonly emulator: ControlledEmulator;
  readonly realtime: RealtimeEndpoint;
  readonly faults: FaultSwitch;
  readonly traffic: TrafficControl;
  /** The visitors of every configured website, by id. */
  readonly visitors: ReadonlyMap<string, VisitorWindow>;
  readonly now: () => number;
  /** Aborts when the emulator is disposed. */
  readonly shutdown: AbortSignal;
  /** Serve the `/__emulator/…` control API. */
  readonly controls: boolean;
  /** Told about unexpected errors, which are answered 500. */
  readonly onError: (error: unknown) => void;
  /** The stand-ins for Plausible, Umami, Matomo, GA4 and Fathom; ones answering the emulator's counts when absent. */
  readonly sources?: SourceStandIns;
}

/** The emulator's routes: the spec's operation, pageview ingestion, and the control API when asked for. */
export function createApp(parts: AppParts): Hono<EmulatorEnv> {
  const { emulator, realtime, faults, traffic, visitors, now } = parts;
  const app = new Hono<EmulatorEnv>();

  // Counts change every second; a cached answer would show a stale number as fresh.
  app.use(async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed(c, methods) {
        const allowed = [...methods, ...(isPublic(c.req.path) ? ['OPTIONS'] : [])].join(', ');
        return errorResponse(c, 405, `Method ${c.req.method} is not allowed on ${c.req.path}. Allowed: ${allowed}`, { Allow: allowed });
      },
    }),
  );
  // Any page may read the service's answers: "*" is safe, as the API takes a bearer token, never cookies.
  app.use(
    except(
      (c) => !isPublic(c.req.path),
      cors({
        origin: '*',
        allowMethods: (_origin, c) => [...routedMethods(app, c.req.path), 'OPTIONS'],
        allowHeaders: ['Authorization', 'Content-Type'],
        exposeHeaders: EXPOSED_HEADERS,
        maxAge: PREFLIGHT_MAX_AGE_SECONDS,
      }),
    ),
  );

  // Not Hono's bodyLimit: it re-wraps the request, and threw (a 500) on a POST with no framing
  // header at all, whose body HTTP/1.1 says is empty.
  const jsonBody = createMiddleware<EmulatorEnv>(async (c, next) => {
    const body = await readJson(c.req.raw);
    if (body === 'too large') {
      // The rest of the body is never read, so the connection cannot carry another request: say so, and close it.
      return errorResponse(c, 413, `Request body must be at most ${MAX_BODY_BYTES} bytes`, { Connection: 'close' });
    }
    if ('error' in body) return errorResponse(c, 400, body.error);
    c.set('body', body.json);
    await next();
  });
  const faultFirst = applyFault({ faults, shutdown: parts.shutdown, report: (websiteId) => realtime.report(websiteId) });

  app.get(REALTIME_PATH, faultFirst, (c) => realtime.answer(c));
  app.post(PAGEVIEWS_PATH, jsonBody, (c) => recordPageview(c, c.var.body, visitors, now()));

  if (parts.controls) {
    app.use(`${CONTROL_PATH_PREFIX}/*`, guardControlApi);
    app.get(`${CONTROL_PATH_PREFIX}/state`, (c) => c.json(emulator.state()));
    app.post(`${CONTROL_PATH_PREFIX}/reset`, (c) => {
      emulator.reset();
      return c.json(emulator.state());
    });
    app.post(`${CONTROL_PATH_PREFIX}/fault`, jsonBody, (c) => setFault(c, faults, c.var.body));
    app.delete(`${CONTROL_PATH_PREFIX}/fault`, (c) => {
      faults.clear();
      return c.json({ fault: null });
    });
    app.post(`${CONTROL_PATH_PREFIX}/traffic`, jsonBody, (c) => setTraffic(c, traffic, c.var.body));
    app.delete(`${CONTROL_PATH_PREFIX}/traffic`, (c) => {
      traffic.stop();
      return c.json(traffic.state);
    });
  }

  // The analytics services a relay can read instead of this one, answering the same counts.
  const sources =
    parts.sources ?? new SourceStandIns({ siteIds: () => [...visitors.keys()], countOf: (id) => visitors.get(id)?.count(now()), now });
  app.route('/', sources.app);
  if (parts.controls) {
    app.get(`${CONTROL_PATH_PREFIX}/sources/:websiteId`, async (c) => {
      const pasted = await standInSources(sources, new URL(c.req.url).origin, c.req.param('websiteId'));
      return pasted ? c.json(pasted) : errorResponse(c, 404, 'Website not found');
    });
  }

  app.notFound((c) => errorResponse(c, 404, 'Not found'));
  app.onError((thrown, c) => {
    parts.onError(thrown);
    return errorResponse(c, 500, 'Internal server error');
  });
  return app;
}

/** Everything but the control API, whose answers no other site may read. */
function isPublic(path: string): boolean {
  return !path.startsWith(CONTROL_PATH_PREFIX);
}

/** The methods a preflight announces for `path`: those routed there, with HEAD wherever Hono answers GET. */
function routedMethods(app: Hono<EmulatorEnv>, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.path !== path || route.method === 'ALL') continue;
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
  }
  return [...methods];
}

/** The body as strict UTF-8 JSON: a byte that is not UTF-8 is an error, not a silent U+FFFD in an id. */
async function readJson(request: Request): Promise<{ readonly json: unknown } | { readonly error: string } | 'too large'> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readCappedBytes(request, MAX_BODY_BYTES);
  } catch {
    return { error: 'Request body could not be read' };
  }
  if (bytes === undefined) return 'too large';
  if (bytes.byteLength === 0) return { error: 'Request body is required: a JSON object' };
  try {
    return { json: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) };
  } catch {
    return { error: 'Request body must be valid JSON' };
  }
}
