/**
 * Every answer of the emulator is built here, so the cross-cutting headers
 * (CORS, no caching, JSON type) cannot be forgotten by one route.
 */

/** Headers a page on another origin may read besides the CORS-safelisted ones. */
export const EXPOSED_HEADERS = ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

/** How long a browser may reuse a preflight answer (Chromium caps it at 7200). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export type Visibility = 'public' | 'private';

export interface AnswerOptions {
  readonly headers?: Record<string, string>;
  /**
   * `public` answers carry CORS headers so any origin can call the service;
   * `private` ones (the control API) do not, so other sites cannot read or drive it.
   */
  readonly visibility?: Visibility;
}

export function answer(status: number, body: BodyInit | null, contentType: string | undefined, options: AnswerOptions = {}): Response {
  const headers = new Headers(options.headers);
  // Counts change every second; a cached answer would show a stale number as fresh.
  headers.set('Cache-Control', 'no-store');
  if (contentType !== undefined && body !== null) headers.set('Content-Type', contentType);
  if ((options.visibility ?? 'public') === 'public') {
    headers.set('Access-Control-Allow-Origin', '*');
    headers.set('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '));
  }
  return new Response(body, { status, headers });
}

export function jsonAnswer(status: number, body: unknown, options?: AnswerOptions): Response {
  return answer(status, JSON.stringify(body), 'application/json', options);
}

/** The error body shape used everywhere: `{ "error": "<message>" }`. */
export function errorAnswer(status: number, message: string, options?: AnswerOptions): Response {
  return jsonAnswer(status, { error: message }, options);
}

export function preflightAnswer(allowedMethods: readonly string[]): Response {
  return answer(204, null, undefined, {
    headers: {
      'Access-Control-Allow-Methods': allowedMethods.join(', '),
      'Access-Control-Allow-Headers': 'Authorization, Content-Type',
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    },
  });
}

export function methodNotAllowedAnswer(method: string, path: string, allowedMethods: readonly string[], visibility: Visibility): Response {
  const allowed = allowedMethods.join(', ');
  return errorAnswer(405, `Method ${method} is not allowed on ${path}. Allowed: ${allowed}`, {
    headers: { Allow: allowed },
    visibility,
  });
}
