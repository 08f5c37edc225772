import type { Hono } from 'hono';
import { STAND_IN_KEYS } from './keys.js';
import { bearerOf, type StandInState } from './stand-in-state.js';

/** How each Umami version wrote the active count: 2.16 and later, 2.0 to 2.15, 1.x. */
const ANSWER_SHAPES = {
  '': (count: number) => ({ visitors: count }),
  '-2.15': (count: number) => ({ x: count }),
  '-1': (count: number) => [{ x: count }],
} as const;

/** A login token lives this long unless revoked (the stand-in's choice; Umami's own is a day by default). */
const LOGIN_TOKEN_LIFETIME_MS = 24 * 3_600_000;

/**
 * Umami's API as its OpenAPI description and official client (`@umami/api-client`) have it:
 * `GET {base}/websites/{websiteId}/active` with Cloud's `x-umami-api-key` or a self-hosted login's
 * Bearer token; `POST {base}/auth/login` with `{ username, password }` answers `{ token, user }`;
 * errors as `{ "error": { "message", "code", "status" } }` (src/lib/response.ts), a website the
 * credential may not view, or that does not exist, 401; Cloud allows 50 calls per 15 s.
 * Three mounts, one per answer shape: `/sources/umami/api` (2.16+), `/sources/umami-2.15/api`,
 * `/sources/umami-1/api`.
 */
export class UmamiStandIn {
  readonly #state: StandInState;
  readonly #loginTokens = new Map<string, number>();

  constructor(state: StandInState) {
    this.#state = state;
  }

  /** Every login token stops working, as when Umami's secret changes or a token expires. */
  revokeLoginTokens(): void {
    this.#loginTokens.clear();
  }

  mount(app: Hono): void {
    for (const [version, shape] of Object.entries(ANSWER_SHAPES)) {
      const base = `/sources/umami${version}/api`;
      app.post(`${base}/auth/login`, async (c) => this.#logIn(c.req.raw).then((answer) => c.json(answer.body, answer.status)));
      app.get(`${base}/websites/:websiteId/active`, async (c) => {
        const imposed = await this.#state.imposed('umami', c);
        if (imposed) return imposed;
        const count = this.#state.countOf(c.req.param('websiteId'));
        // Umami checks canViewWebsite, which is false for a website it does not know: 401, not 404.
        if (!this.#isAuthorised(c.req.header('x-umami-api-key'), bearerOf(c)) || count === undefined)
          return c.json(umamiError('unauthorized', 'Unauthorized', 401), 401);
        const rate = this.#state.takeRate('umami', 50, 15_000);
        if (rate !== true) return c.json(umamiError('too-many-requests', 'Too many requests', 429), 429, { 'Retry-After': String(rate) });
        return c.json(shape(count));
      });
    }
  }

  #isAuthorised(apiKey: string | undefined, bearer: string | undefined): boolean {
    if (apiKey !== undefined) return apiKey === STAND_IN_KEYS.umami;
    const expiresAtMs = bearer === undefined ? undefined : this.#loginTokens.get(bearer);
    return expiresAtMs !== undefined && this.#state.now() < expiresAtMs;
  }

  async #logIn(request: Request): Promise<{ body: object; status: 200 | 400 | 401 }> {
    this.#state.logins += 1;
    let body: { username?: unknown; password?: unknown };
    try {
      body = (await request.json()) as typeof body;
    } catch {
      return { body: umamiError('bad-request', 'Bad request', 400), status: 400 };
    }
    const { username, password } = STAND_IN_KEYS.umamiLogin;
    if (body?.username !== username || body?.password !== password) {
      return { body: umamiError('unauthorized', 'Incorrect username and/or password.', 401), status: 401 };
    }
    const token = crypto.randomUUID().replaceAll('-', '') + crypto.randomUUID().replaceAll('-', '');
    this.#loginTokens.set(token, this.#state.now() + LOGIN_TOKEN_LIFETIME_MS);
    return {
      body: { token, user: { id: crypto.randomUUID(), username, role: 'admin', createdAt: new Date(0).toISOString(), isAdmin: true } },
      status: 200,
    };
  }
}

function umamiError(code: string, message: string, status: number) {
  return { error: { code, message, status } };
}
