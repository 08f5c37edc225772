import type { MiddlewareHandler } from 'hono';
import { isLoopbackHost } from '../../../server-kit/loopback.js';
import { errorResponse } from './error-response.js';

/** Prefix of the control API: outside `/api/`, so it can never collide with a spec path. */
export const CONTROL_PATH_PREFIX = '/__emulator';

const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/**
 * In front of every control route, for the demo and browser fault tests run on this machine.
 * With no CORS headers on its answers, another site open in the same browser cannot read the
 * control API; with JSON demanded of every POST (which no cross-origin page can send without a
 * preflight, refused here), it cannot drive it either.
 */
export const guardControlApi: MiddlewareHandler = async (c, next) => {
  // DNS rebinding: a page on attacker.example resolving to 127.0.0.1 must not reach the controls.
  if (!isLoopbackHost(new URL(c.req.url).hostname)) {
    return errorResponse(c, 403, 'The control API answers on localhost only');
  }
  // The body-less reset too: a plain HTML form on any site could otherwise post it.
  if (c.req.method === 'POST' && !JSON_CONTENT_TYPE.test(c.req.header('content-type') ?? '')) {
    return errorResponse(c, 415, 'Content-Type must be application/json');
  }
  return next();
};
