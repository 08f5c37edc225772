import { errorAnswer, methodNotAllowedAnswer, preflightAnswer, type Visibility } from './responses.js';

export type RouteHandler = (request: Request, url: URL) => Response | Promise<Response>;

export interface Route {
  readonly visibility: Visibility;
  readonly methods: Readonly<Record<string, RouteHandler>>;
}

/** Exact paths only: `/api/v1/realtime/` (trailing slash) is a different, unknown path. */
export type RouteTable = ReadonlyMap<string, Route>;

/**
 * Plain dispatch on path then method: 404 for an unknown path, CORS preflight for
 * public routes, 405 with `Allow` for a known path asked with the wrong method.
 */
export function dispatch(routes: RouteTable, request: Request): Response | Promise<Response> {
  const url = new URL(request.url);
  const route = routes.get(url.pathname);
  if (!route) return errorAnswer(404, 'Not found');
  const method = request.method.toUpperCase();
  const allowed = allowedMethods(route);
  if (method === 'OPTIONS' && route.visibility === 'public') return preflightAnswer(allowed);
  // DNS rebinding: a page on attacker.example resolving to 127.0.0.1 must not reach the controls.
  if (route.visibility === 'private' && !isLoopbackHost(url.hostname)) return errorAnswer(403, 'The control API answers on localhost only', { visibility: 'private' });
  const handle = route.methods[method];
  if (!handle) return methodNotAllowedAnswer(method, url.pathname, allowed, route.visibility);
  return handle(request, url);
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(hostname) || hostname === '[::1]';
}

function allowedMethods(route: Route): string[] {
  const methods = Object.keys(route.methods);
  return route.visibility === 'public' ? [...methods, 'OPTIONS'] : methods;
}
