import { type AppSecret, base64Bytes } from './app-secret.js';
import { SHOPIFY_SHOP_SYNTAX } from './shop-domain.js';

/**
 * How far `exp` and `nbf` may be off this server's clock, in seconds: the 10 s Shopify's own
 * library allows, for clocks that drift. A session token lives a minute; an older one is refused.
 */
export const SESSION_TOKEN_LEEWAY_SECONDS = 10;

/** A session token is about 700 characters; anything much longer is not one. */
const MAX_TOKEN_LENGTH = 4_096;

export type SessionTokenVerdict =
  | {
      readonly valid: true;
      readonly shop: string;
      /** The token's `jti`, which a write spends (null when it has none, so it cannot write). */
      readonly tokenId: string | null;
      /** Until when (ms since the epoch) this server accepts the token: its `exp` plus the leeway. */
      readonly acceptedUntilMs: number;
    }
  | { readonly valid: false; readonly message: string };

/**
 * Checks the session token App Bridge's `shopify.idToken()` gives the embedded admin page, sent as
 * `Authorization: Bearer <token>`: a JWT signed HS256 with the app's client secret, for this app
 * (`aud` is its client id), within its lifetime, naming the shop in `dest`. Never throws.
 */
export class SessionTokenVerifier {
  readonly #clientId: string;
  readonly #secret: AppSecret;
  readonly #wallClock: () => number;

  /** `wallClock`: milliseconds since the epoch, to judge `exp` and `nbf` against. */
  constructor(clientId: string, secret: AppSecret, wallClock: () => number = Date.now) {
    this.#clientId = clientId;
    this.#secret = secret;
    this.#wallClock = wallClock;
  }

  async verify(authorization: string | null): Promise<SessionTokenVerdict> {
    const token = /^Bearer ([\w.-]+)$/.exec(authorization ?? '')?.[1];
    if (token === undefined) return refuse("No session token: send App Bridge's shopify.idToken() as Authorization: Bearer <token>");
    const parts = token.split('.');
    if (token.length > MAX_TOKEN_LENGTH || parts.length !== 3) return refuse('Invalid session token: not a JWT');
    const [header, payload, signature] = parts as [string, string, string];
    const fields = readJson(header);
    if (fields?.alg !== 'HS256' || fields.crit !== undefined)
      return refuse('Invalid session token: Shopify signs session tokens with HS256');
    const signatureBytes = base64Bytes(signature, 'base64url', 32);
    if (signatureBytes?.length !== 32 || !(await this.#secret.signed(signatureBytes, `${header}.${payload}`))) {
      return refuse("Invalid session token: not signed with this app's client secret, or changed on the way");
    }
    const claims = readJson(payload);
    if (claims === null) return refuse('Invalid session token: its payload is not a JSON object');
    // Whole seconds, as the JWT's times are; the same arithmetic as Shopify's library (jose).
    const nowSeconds = Math.floor(this.#wallClock() / 1000);
    if (typeof claims.exp !== 'number' || typeof claims.nbf !== 'number' || !['number', 'undefined'].includes(typeof claims.iat)) {
      return refuse('Invalid session token: exp and nbf must be numbers (and iat, when present)');
    }
    if (!(claims.exp > nowSeconds - SESSION_TOKEN_LEEWAY_SECONDS)) {
      return refuse("Expired session token: ask App Bridge for a new one (check this server's clock if this repeats)");
    }
    if (!(claims.nbf <= nowSeconds + SESSION_TOKEN_LEEWAY_SECONDS)) {
      return refuse("Session token not valid yet: check this server's clock");
    }
    if (claims.aud !== this.#clientId) return refuse("Invalid session token: it is for another app (aud is not this app's client id)");
    const shop = typeof claims.dest === 'string' ? /^https:\/\/([^/]+)$/.exec(claims.dest)?.[1] : undefined;
    if (shop === undefined || !SHOPIFY_SHOP_SYNTAX.test(shop))
      return refuse('Invalid session token: dest names no shop (https://{shop}.myshopify.com)');
    // Shopify's iss is the shop's admin, https://{shop}/admin: the same shop as dest, or nothing.
    if (claims.iss !== undefined && (typeof claims.iss !== 'string' || claims.iss.replace(/^https:\/\//, '') !== `${shop}/admin`)) {
      return refuse('Invalid session token: iss and dest name different shops');
    }
    const tokenId = typeof claims.jti === 'string' && claims.jti !== '' && claims.jti.length <= 256 ? claims.jti : null;
    return { valid: true, shop, tokenId, acceptedUntilMs: Math.ceil(claims.exp + SESSION_TOKEN_LEEWAY_SECONDS) * 1000 };
  }
}

function refuse(message: string): SessionTokenVerdict {
  return { valid: false, message };
}

/** A JWT part as the JSON object it must be, or null. */
function readJson(part: string): Record<string, unknown> | null {
  const bytes = base64Bytes(part, 'base64url', MAX_TOKEN_LENGTH);
  if (bytes === null) return null;
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
