import type { Context, Hono } from 'hono';
import type { StandInState } from './stand-in-state.js';

/** What Google's token endpoint says an access token lives, in seconds. */
const ACCESS_TOKEN_LIFETIME_S = 3_599;
const READONLY_SCOPE = 'https://www.googleapis.com/auth/analytics.readonly';
/** A standard property's realtime reach: minuteRanges may start at most 29 minutes ago. */
const MAX_START_MINUTES_AGO = 29;

/** A service account's JSON key as Google Cloud downloads it, for the stand-in's own account. */
export interface StandInServiceAccountKey {
  readonly type: 'service_account';
  readonly project_id: string;
  readonly private_key_id: string;
  readonly private_key: string;
  readonly client_email: string;
  readonly client_id: string;
  readonly token_uri: string;
}

/**
 * Google Analytics 4 as the Data API's protos (through `@google-analytics/data`) and Google's
 * service-account OAuth flow describe them: `POST /sources/ga4/token` takes an RS256 JWT
 * assertion (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`) signed with the account's
 * key and answers `{ access_token, expires_in: 3599, token_type: "Bearer" }`; `POST
 * /v1beta/properties/{id}:runRealtimeReport` (at the root, where the official client's REST
 * transport sends it) answers `activeUsers` as a string, with no rows for none; errors as
 * `{ "error": { "code", "message", "status" } }`. Property ids are the websites' positions from 1.
 */
export class Ga4StandIn {
  readonly #state: StandInState;
  readonly #accessTokens = new Map<string, number>();
  #account: Promise<{ key: CryptoKey; email: string; privateKeyPem: string; keyId: string }> | undefined;

  constructor(state: StandInState) {
    this.#state = state;
  }

  /** The key a shop would paste, for this stand-in at `origin`. */
  async serviceAccountKey(origin: string): Promise<StandInServiceAccountKey> {
    const account = await this.#serviceAccount();
    return {
      type: 'service_account',
      project_id: 'live-visitors-stand-in',
      private_key_id: account.keyId,
      private_key: account.privateKeyPem,
      client_email: account.email,
      client_id: '100000000000000000000',
      token_uri: `${origin}/sources/ga4/token`,
    };
  }

  /** Every access token stops working (revoked, or the key was deleted). */
  revokeAccessTokens(): void {
    this.#accessTokens.clear();
  }

  mount(app: Hono): void {
    app.post('/sources/ga4/token', (c) => this.#token(c));
    app.post('/v1beta/properties/:call', (c) => this.#runRealtimeReport(c));
  }

  #serviceAccount() {
    this.#account ??= (async () => {
      const pair = (await crypto.subtle.generateKey(
        { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
        true,
        ['sign', 'verify'],
      )) as { privateKey: CryptoKey; publicKey: CryptoKey };
      const der = new Uint8Array(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
      const base64 = btoa(String.fromCharCode(...der)).replace(/.{64}/g, '$&\n');
      return {
        key: pair.publicKey,
        email: 'live-visitors@live-visitors-stand-in.iam.gserviceaccount.com',
        privateKeyPem: `-----BEGIN PRIVATE KEY-----\n${base64}\n-----END PRIVATE KEY-----\n`,
        keyId: crypto.randomUUID().replaceAll('-', ''),
      };
    })();
    return this.#account;
  }

  async #token(c: Context): Promise<Response> {
    this.#state.tokenRequests += 1;
    const form = new URLSearchParams(await c.req.text());
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      return c.json({ error: 'unsupported_grant_type', error_description: 'Invalid grant_type: ' }, 400);
    }
    const problem = await this.#assertionProblem(form.get('assertion') ?? '', new URL(c.req.url).origin);
    if (problem) return c.json({ error: 'invalid_grant', error_description: problem }, 400);
    const token = `ya29.stand-in-${crypto.randomUUID()}`;
    this.#accessTokens.set(token, this.#state.now() + ACCESS_TOKEN_LIFETIME_S * 1000);
    return c.json({ access_token: token, expires_in: ACCESS_TOKEN_LIFETIME_S, token_type: 'Bearer' });
  }

  /** Why Google would refuse the assertion, in its words; null when it is good. */
  async #assertionProblem(assertion: string, origin: string): Promise<string | null> {
    const [header, claims, signature] = assertion.split('.');
    if (!header || !claims || !signature) return 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.';
    const account = await this.#serviceAccount();
    let head: { alg?: unknown };
    let body: Record<string, unknown>;
    try {
      const signed = await crypto.subtle.verify(
        'RSASSA-PKCS1-v1_5',
        account.key,
        fromBase64url(signature),
        new TextEncoder().encode(`${header}.${claims}`),
      );
      if (!signed) return 'Invalid JWT Signature.';
      head = JSON.parse(new TextDecoder().decode(fromBase64url(header))) as typeof head;
      body = JSON.parse(new TextDecoder().decode(fromBase64url(claims))) as typeof body;
    } catch {
      // Not base64url, or not JSON: Google refuses such an assertion as it refuses a bad one, with a 400.
      return 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.';
    }
    if (typeof head !== 'object' || head === null || typeof body !== 'object' || body === null) return 'Invalid JWT: not a JWT.';
    const nowS = this.#state.now() / 1000;
    if (head.alg !== 'RS256') return 'Invalid JWT: alg must be RS256.';
    if (body.iss !== account.email) return 'Invalid JWT: iss is not the service account.';
    if (body.aud !== `${origin}/sources/ga4/token`) return 'Invalid JWT: aud must be the token_uri.';
    if (typeof body.scope !== 'string' || !body.scope.split(' ').includes(READONLY_SCOPE)) return 'Invalid JWT: no Analytics scope.';
    const iat = Number(body.iat);
    const exp = Number(body.exp);
    if (!(iat <= nowS + 60 && exp > nowS && exp - iat <= 3_600)) {
      return 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.';
    }
    return null;
  }

  async #runRealtimeReport(c: Context): Promise<Response> {
    const imposed = await this.#state.imposed('ga4', c);
    if (imposed) return imposed;
    const propertyId = /^(\d+):runRealtimeReport$/.exec(c.req.param('call') ?? '')?.[1];
    if (propertyId === undefined) return googleError(c, 404, 'NOT_FOUND', 'Method not found.');
    const token = /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    const expiresAtMs = token === undefined ? undefined : this.#accessTokens.get(token);
    if (expiresAtMs === undefined || this.#state.now() >= expiresAtMs) {
      return googleError(
        c,
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    }
    const siteId = this.#state.siteAt(propertyId);
    const count = siteId === undefined ? undefined : this.#state.countOf(siteId);
    if (count === undefined)
      return googleError(
        c,
        403,
        'PERMISSION_DENIED',
        `User does not have sufficient permissions for this property. To learn more about Property ID, see https://developers.google.com/analytics/devguides/reporting/data/v1/property-id.`,
      );
    let request: { metrics?: Array<{ name?: unknown }>; minuteRanges?: Array<{ startMinutesAgo?: unknown; endMinutesAgo?: unknown }> };
    try {
      request = (await c.req.json()) as typeof request;
    } catch {
      return googleError(c, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    }
    if (typeof request !== 'object' || request === null || !Array.isArray(request.minuteRanges ?? [])) {
      return googleError(c, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    }
    const metric = request.metrics?.[0]?.name;
    if (request.metrics?.length !== 1 || metric !== 'activeUsers')
      return googleError(c, 400, 'INVALID_ARGUMENT', 'This stand-in answers the one metric activeUsers.');
    for (const range of request.minuteRanges ?? []) {
      const start = Number(range?.startMinutesAgo ?? MAX_START_MINUTES_AGO);
      const end = Number(range?.endMinutesAgo ?? 0);
      if (typeof range !== 'object' || range === null || !(start >= 0 && start <= MAX_START_MINUTES_AGO && end <= start)) {
        return googleError(c, 400, 'INVALID_ARGUMENT', `minuteRanges startMinutesAgo must be between 0 and ${MAX_START_MINUTES_AGO}.`);
      }
    }
    const metricHeaders = [{ name: 'activeUsers', type: 'TYPE_INTEGER' }];
    // Google leaves rows out when nothing happened.
    if (count === 0) return c.json({ metricHeaders, kind: 'analyticsData#runRealtimeReport' });
    return c.json({
      metricHeaders,
      rows: [{ metricValues: [{ value: String(count) }] }],
      rowCount: 1,
      kind: 'analyticsData#runRealtimeReport',
    });
  }
}

function googleError(c: Context, code: 400 | 401 | 403 | 404, status: string, message: string): Response {
  return c.json({ error: { code, message, status } }, code);
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
