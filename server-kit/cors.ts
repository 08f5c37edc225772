/** How long a browser may reuse a preflight answer (Chromium caps it at 7200). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export interface CorsOptions {
  /** Exact origins allowed to read answers; `['*']` for any; `[]` for same origin only. */
  readonly allowOrigins: readonly string[];
  /** Answer headers a page on another origin may read besides the safelisted ones. */
  readonly exposeHeaders: readonly string[];
  /** Methods and request headers a preflight allows. */
  readonly allowMethods: readonly string[];
  readonly allowHeaders: readonly string[];
}

/**
 * Which pages on other origins may read the answers: exactly the configured origins. Written for
 * the relay's hot path, where it costs two header lookups (the emulator uses its router's CORS).
 */
export class CorsPolicy {
  readonly #anyOrigin: boolean;
  readonly #origins: ReadonlySet<string>;
  readonly #exposed: string;
  readonly #preflight: Record<string, string>;
  // With "*" every answer carries the CORS headers, Origin or not: a shared cache filled by a
  // same-origin page or a health check must still serve pages on other origins.
  readonly #forAnyOrigin: Readonly<Record<string, string>>;
  // The answer depends on Origin only when some origins are listed and others are not; a shared
  // cache must then keep one copy per origin.
  readonly #forOthers: Readonly<Record<string, string>>;
  /** At most one per configured origin. */
  readonly #forListed = new Map<string, Readonly<Record<string, string>>>();

  constructor(options: CorsOptions) {
    this.#anyOrigin = options.allowOrigins.includes('*');
    this.#origins = new Set(options.allowOrigins);
    this.#exposed = options.exposeHeaders.join(', ');
    this.#preflight = {
      'Access-Control-Allow-Methods': options.allowMethods.join(', '),
      'Access-Control-Allow-Headers': options.allowHeaders.join(', '),
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    };
    this.#forAnyOrigin = Object.freeze({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': this.#exposed });
    this.#forOthers = Object.freeze<Record<string, string>>(this.#origins.size > 0 ? { Vary: 'Origin' } : {});
  }

  isAllowed(origin: string | null): origin is string {
    return origin !== null && (this.#anyOrigin || this.#origins.has(origin));
  }

  /**
   * Headers for an answer to a request from `origin`. A refused origin simply gets no
   * `Access-Control-Allow-Origin`: its browser withholds the answer, while same-origin pages
   * and servers are unaffected. The objects are made once per origin and frozen: the hot path
   * allocates nothing, and callers copy before they add.
   */
  headersFor(origin: string | null): Readonly<Record<string, string>> {
    if (this.#anyOrigin) return this.#forAnyOrigin;
    if (origin === null || !this.#origins.has(origin)) return this.#forOthers;
    let headers = this.#forListed.get(origin);
    if (!headers) {
      headers = Object.freeze({
        ...this.#forOthers,
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Expose-Headers': this.#exposed,
      });
      this.#forListed.set(origin, headers);
    }
    return headers;
  }

  /** Headers of a preflight answer for an allowed origin. */
  preflightHeaders(origin: string): Record<string, string> {
    return { ...this.headersFor(origin), ...this.#preflight };
  }
}
