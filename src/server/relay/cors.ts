/** The methods the relay answers; OPTIONS only as a CORS preflight. */
export const RELAY_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;
/** How long a browser may reuse a preflight answer (Chromium caps it at 7200). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;
/**
 * The widget sends neither, so it needs no preflight. `Authorization` is allowed anyway
 * so a page that still sets a token keeps working (the relay ignores the header).
 */
const ALLOWED_REQUEST_HEADERS = ['Authorization', 'If-None-Match'];

/** Which pages on other origins may read the relay's answers: exactly the configured origins. */
export class CorsPolicy {
  readonly #anyOrigin: boolean;
  readonly #origins: ReadonlySet<string>;

  constructor(allowOrigins: readonly string[]) {
    this.#anyOrigin = allowOrigins.includes('*');
    this.#origins = new Set(allowOrigins);
  }

  isAllowed(origin: string | null): origin is string {
    return origin !== null && (this.#anyOrigin || this.#origins.has(origin));
  }

  /**
   * Headers for an answer to a request from `origin`. A refused origin simply gets no
   * `Access-Control-Allow-Origin`: its browser withholds the answer, while same-origin pages
   * and servers are unaffected.
   */
  headersFor(origin: string | null): Record<string, string> {
    const headers: Record<string, string> = {};
    // The answer depends on Origin only when some origins are listed and others are not;
    // a shared cache must then keep one copy per origin.
    if (!this.#anyOrigin && this.#origins.size > 0) headers['Vary'] = 'Origin';
    // With "*" every answer carries the CORS headers, Origin or not: a shared cache filled by a
    // same-origin page or a health check must still serve pages on other origins.
    if (this.#anyOrigin || this.isAllowed(origin)) {
      headers['Access-Control-Allow-Origin'] = this.#anyOrigin ? '*' : origin!;
      headers['Access-Control-Expose-Headers'] = 'Retry-After, ETag, Age';
    }
    return headers;
  }

  /** Headers of a preflight answer for an allowed origin. */
  preflightHeaders(origin: string): Record<string, string> {
    return {
      ...this.headersFor(origin),
      'Access-Control-Allow-Methods': 'GET, HEAD',
      'Access-Control-Allow-Headers': ALLOWED_REQUEST_HEADERS.join(', '),
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    };
  }
}
