import { FastResponse } from 'srvx';
import { withDeadline } from '../../../server-kit/deadline.js';
import type { After } from '../../../src/contract/timers.js';
import { errorResponse, type ResponseContext } from '../responses.js';
import type { RelayStore } from '../store/relay-store.js';
import { EXPOSITION_CONTENT_TYPE } from './metrics-registry.js';
import { holdsMetricsToken } from './metrics-token.js';
import type { RelayMetrics } from './relay-metrics.js';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const METRICS_PATH = '/metrics';
/** A store that takes longer than this to answer a ping is not ready: a second, twice the Redis store's own command bound. */
export const READY_BOUND_MS = 1_000;
/** Any id the relay never serves (a website id cannot hold a space): a store without `ping` is read under it instead. */
const PROBE_ID = 'readiness probe';

export interface OperatorRouteParts {
  /** Null when the config has no `metricsToken`: then `/metrics` is not there (404). */
  readonly metrics: RelayMetrics | null;
  readonly metricsToken: string | null;
  readonly store: RelayStore;
  readonly timers: After;
}

/** What the operator's routes answer for a path: a response, or undefined for a path that is not theirs. */
export type OperatorRoutes = (pathname: string, request: Request, context: ResponseContext) => Response | Promise<Response> | undefined;

/**
 * The operator's routes: `GET /healthz` (the process answers), `GET /readyz` (the store answers a
 * ping within a second; 503 otherwise, so a load balancer sends shoppers elsewhere) and, with
 * `metricsToken`, `GET /metrics` behind that bearer token. None carries CORS headers: pages never read them.
 */
export function operatorRoutes(parts: OperatorRouteParts): OperatorRoutes {
  const { metrics, metricsToken, store, timers } = parts;
  const own = (context: ResponseContext): ResponseContext => ({ cors: {}, withoutBody: context.withoutBody });
  return (pathname, request, context) => {
    const exposesMetrics = metrics !== null && metricsToken !== null && pathname === METRICS_PATH;
    if (pathname !== HEALTH_PATH && pathname !== READY_PATH && !exposesMetrics) return undefined;
    const method = request.method.toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') {
      return errorResponse(405, `Method ${method} is not allowed on ${pathname}. Allowed: GET, HEAD`, own(context), { Allow: 'GET, HEAD' });
    }
    if (pathname === HEALTH_PATH) return text(200, 'ok\n', context);
    if (pathname === READY_PATH) return readiness(store, timers, context);
    return exposition(metrics!, metricsToken!, request, own(context));
  };
}

async function readiness(store: RelayStore, timers: After, context: ResponseContext): Promise<Response> {
  try {
    await withDeadline(timers, READY_BOUND_MS, 'no answer', () => (store.ping ? store.ping() : store.read(PROBE_ID)));
    return text(200, 'ready\n', context);
  } catch {
    // The store's own words may name its host: the operator finds them in the log, not here.
    return errorResponse(503, `The relay's store did not answer within ${READY_BOUND_MS} ms`, {
      cors: {},
      withoutBody: context.withoutBody,
    });
  }
}

async function exposition(metrics: RelayMetrics, token: string, request: Request, context: ResponseContext): Promise<Response> {
  if (!(await holdsMetricsToken(request.headers.get('authorization'), token))) {
    return errorResponse(401, "Send the relay's metricsToken as Authorization: Bearer <token>", context, { 'WWW-Authenticate': 'Bearer' });
  }
  return new FastResponse(context.withoutBody ? null : metrics.expose(), {
    headers: { 'Content-Type': EXPOSITION_CONTENT_TYPE, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
  });
}

function text(status: number, body: string, context: ResponseContext): Response {
  return new FastResponse(context.withoutBody ? null : body, {
    status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
  });
}
