import { readCappedText } from '../../../server-kit/capped-body.js';
import { type PublicSource, readRequestedSource } from '../registry/registered-source.js';
import { sourceIdOf } from '../registry/registration-checks.js';
import type { Refusal, Registrations } from '../registry/registrations.js';
import type { SourceSettings } from '../sources/source.js';
import { jsonResponse } from './json-response.js';
import type { SessionTokenVerifier } from './session-token.js';

/** `{ "websiteId", "token" }` is well under a kilobyte; a source with a service account's JSON key about 3. */
const MAX_SETTINGS_BYTES = 16_384;

/** The count the relay serves for a website right now, or why there is none, in words. */
export type LiveCount = { readonly count: number; readonly timestamp: string; readonly windowMinutes: number } | { readonly error: string };

export interface SettingsApiOptions {
  readonly sessionTokens: SessionTokenVerifier;
  readonly registrations: Registrations;
  /** Reads the website's count as shoppers get it, so Save shows that it works. */
  readonly liveCount: (websiteId: string) => Promise<LiveCount>;
  /**
   * Spends a session token's `jti` on a write: true the first time, false when it was spent
   * already (remembered until the token expires), so a captured token cannot replay a change.
   */
  readonly spendSessionToken: (tokenId: string, untilMs: number) => Promise<boolean>;
}

/** The `code` of the 401 for a token already spent: the admin page asks App Bridge for another and tries once more. */
export const SESSION_TOKEN_SPENT = 'session-token-spent';

/** What the admin page shows: never more of the token than its last four characters. */
export interface ShopSettings {
  readonly websiteId: string | null;
  readonly tokenEnding: string | null;
  /** The source's kind and public fields (never its key); null: the contract's service; absent when nothing is saved. */
  readonly source?: PublicSource | null;
  readonly live: LiveCount | null;
}

/**
 * `GET`/`PUT /shopify/app/settings`, for the embedded admin page. The shop is the one the session
 * token's `dest` names, so a shop reads and changes only its own settings. `PUT` registers the
 * website with the token (the service is asked once; nothing is stored when it refuses) and binds
 * it to the shop, so the App Proxy's requests signed for that shop are served with it.
 */
export async function answerSettings(request: Request, options: SettingsApiOptions): Promise<Response> {
  const method = request.method;
  if (method !== 'GET' && method !== 'PUT')
    return jsonResponse(405, { error: `Method ${method} is not allowed here. Allowed: GET, PUT` }, { Allow: 'GET, PUT' });
  const session = await options.sessionTokens.verify(request.headers.get('authorization'));
  if (!session.valid) {
    await request.body?.cancel().catch(() => undefined);
    return jsonResponse(401, { error: session.message });
  }
  try {
    if (method === 'GET') return await current(session.shop, options);
    // A write spends its token; reads may reuse one (App Bridge may hand the same one out until it expires).
    if (session.tokenId === null) {
      await request.body?.cancel().catch(() => undefined);
      return jsonResponse(401, {
        error: 'Invalid session token: without a jti a replay of it cannot be told apart, so it cannot change settings',
      });
    }
    if (!(await options.spendSessionToken(session.tokenId, session.acceptedUntilMs))) {
      await request.body?.cancel().catch(() => undefined);
      return jsonResponse(401, {
        error: 'This session token was already used for a change: each save needs a new one from App Bridge (shopify.idToken())',
        code: SESSION_TOKEN_SPENT,
      });
    }
    return await save(request, session.shop, options);
  } catch {
    return jsonResponse(503, { error: "The relay's store is unreachable; try again in a minute" });
  }
}

async function current(shop: string, options: SettingsApiOptions): Promise<Response> {
  const websiteId = await options.registrations.websiteOfShop(shop);
  const registration = websiteId === null ? null : await options.registrations.read(websiteId);
  if (registration === null) return jsonResponse(200, { websiteId: null, tokenEnding: null, live: null } satisfies ShopSettings);
  return jsonResponse(200, {
    websiteId: registration.websiteId,
    tokenEnding: registration.tokenEnding,
    source: registration.source,
    live: await options.liveCount(registration.websiteId),
  } satisfies ShopSettings);
}

async function save(request: Request, shop: string, options: SettingsApiOptions): Promise<Response> {
  const text = await readCappedText(request, MAX_SETTINGS_BYTES).catch(() => undefined);
  if (text === undefined) return jsonResponse(413, { error: `The settings must be a JSON object of at most ${MAX_SETTINGS_BYTES} bytes` });
  const settings = readSettings(text);
  if (typeof settings === 'string') return jsonResponse(400, { error: settings });
  const registered = await options.registrations.register({ ...settings, requester: `shop:${shop}` });
  if (registered.outcome === 'refused') return refusal(registered);
  const bound = await options.registrations.bindShop(shop, settings.websiteId);
  if (bound.outcome === 'refused') return refusal(bound);
  return jsonResponse(200, {
    websiteId: bound.registration.websiteId,
    tokenEnding: bound.registration.tokenEnding,
    source: bound.registration.source,
    live: await options.liveCount(bound.registration.websiteId),
  } satisfies ShopSettings);
}

/**
 * `{ "websiteId": string, "token": string }` or `{ "source" }`, whose website ID is the
 * one its kind and site make (a source proves only that ID; a `websiteId` sent with it
 * must be that one), and nothing else; or what is wrong with it.
 */
function readSettings(text: string): { websiteId: string; token: string; source?: SourceSettings } | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'The settings must be JSON: { "websiteId": "…", "token": "…" }';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'The settings must be a JSON object: { "websiteId": "…", "token": "…" }';
  const { websiteId, token, source, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return 'The settings take only websiteId and token (or a source in place of the token)';
  if (source !== undefined) {
    // The source's own key proves the site is the shop's, as the token does for the realtime API.
    const read = readRequestedSource(source);
    if ('message' in read) return read.message;
    const named = sourceIdOf(read.source);
    if (typeof named !== 'string') return named.message;
    const given = typeof websiteId === 'string' ? websiteId.trim() : '';
    return { websiteId: given === '' ? named : given, token: '', source: read.source };
  }
  if (typeof websiteId !== 'string' || websiteId.trim() === '') return 'Enter the website ID';
  if (typeof token !== 'string' || token.trim() === '') return 'Enter the API token';
  return { websiteId: websiteId.trim(), token: token.trim() };
}

function refusal(refused: Refusal): Response {
  const headers: Record<string, string> =
    refused.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(refused.retryAfterSeconds) };
  return jsonResponse(refused.status, { error: refused.message }, headers);
}
