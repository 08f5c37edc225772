import { FastResponse } from 'srvx';
import { readCappedText } from '../../../server-kit/capped-body.js';
import { isPlainObject } from '../../../server-kit/config-checks.js';
import { errorResponse, type ResponseContext } from '../responses.js';
import type { SourceSettings } from '../sources/source.js';
import { readRequestedSource } from './registered-source.js';
import { sourceIdOf, WEBSITES_COLLECTION } from './registration-checks.js';
import type { Refusal, RegistrationRequest, Registrations } from './registrations.js';

/** `PUT`/`DELETE /api/v1/websites/{websiteId}`: the prefix before the id. */
export const WEBSITES_PATH = '/api/v1/websites/';
/** A registration's body is a few origins and a source (a service account's JSON key is about 2.4 KB): anything larger is not one. */
export const MAX_REGISTRATION_BODY_BYTES = 16 * 1024;
const METHODS = 'PUT, DELETE';
const COLLECTION_METHODS = 'POST';

/** The registration API's paths: the collection (`POST`) and one website (`PUT`, `DELETE`). */
export function isRegistrationPath(pathname: string): boolean {
  return pathname === WEBSITES_COLLECTION || pathname.startsWith(WEBSITES_PATH);
}
const BODY_FIELDS = ['allowOrigins', 'hourlyBudget', 'source'];

/**
 * The registration API: `PUT /api/v1/websites/{id}` registers or replaces (`201`/`200`,
 * `{ websiteId, allowOrigins }`), `DELETE` removes (`204`), each with `Authorization: Bearer
 * <token>` or a source in the body; `POST /api/v1/websites` registers a source under the ID its
 * kind and site make, and answers with it. Every refusal is the service's `{ "error" }` with its
 * status. Same origin only (no CORS): the owner page and tools such as curl call it, never another
 * site's pages. Nothing here ever echoes the token.
 */
export async function answerRegistration(
  registrations: Registrations,
  request: Request,
  pathname: string,
  requester: string,
  context: ResponseContext,
): Promise<Response> {
  if (pathname === WEBSITES_COLLECTION) return answerCollection(registrations, request, requester, context);
  const websiteId = readPathId(pathname);
  if (websiteId === null) {
    return errorResponse(400, `The path must be ${WEBSITES_PATH}{websiteId}, the id URL-encoded once`, context);
  }
  const method = request.method.toUpperCase();
  if (method !== 'PUT' && method !== 'DELETE') {
    return errorResponse(405, `Method ${method} is not allowed on ${WEBSITES_PATH}{websiteId}. Allowed: ${METHODS}`, context, {
      Allow: METHODS,
    });
  }
  const body = await readBody(request);
  if ('error' in body) return errorResponse(body.status, body.error, context);
  // A source's own key proves ownership instead of the token: then no Authorization is needed.
  const { source } = body.fields;
  const token = readBearer(request.headers.get('authorization')) ?? (source === undefined ? null : '');
  if (token === null) {
    return errorResponse(
      401,
      "Send the website's API token as Authorization: Bearer <token> (or its source, with its key, in the body); it proves the website is yours",
      context,
      { 'WWW-Authenticate': 'Bearer' },
    );
  }
  if (method === 'DELETE') {
    const removed = await registrations.remove(websiteId, token, requester, source);
    return removed.outcome === 'removed' ? new FastResponse(null, { status: 204, headers: NO_STORE }) : refused(removed, context);
  }
  return registered(registrations, { websiteId, token: source === undefined ? token : '', requester, ...body.fields }, context);
}

/** `POST /api/v1/websites` with a source: registered under the ID it makes, which the answer names. */
async function answerCollection(
  registrations: Registrations,
  request: Request,
  requester: string,
  context: ResponseContext,
): Promise<Response> {
  const method = request.method.toUpperCase();
  if (method !== 'POST') {
    await request.body?.cancel().catch(() => undefined);
    return errorResponse(
      405,
      `Method ${method} is not allowed on ${WEBSITES_COLLECTION}: POST registers a source; PUT and DELETE go to ${WEBSITES_PATH}{websiteId}`,
      context,
      { Allow: COLLECTION_METHODS },
    );
  }
  const body = await readBody(request);
  if ('error' in body) return errorResponse(body.status, body.error, context);
  const { source } = body.fields;
  if (source === undefined) {
    return errorResponse(
      400,
      `POST ${WEBSITES_COLLECTION} registers a website by its source: send { "source": { "kind": …, … } }. A website of the realtime API: PUT ${WEBSITES_PATH}{websiteId} with Authorization: Bearer <token>`,
      context,
    );
  }
  const websiteId = sourceIdOf(source);
  if (typeof websiteId !== 'string') return refused(websiteId, context);
  return registered(registrations, { websiteId, token: '', requester, ...body.fields }, context);
}

async function registered(registrations: Registrations, request: RegistrationRequest, context: ResponseContext): Promise<Response> {
  const outcome = await registrations.register(request);
  if (outcome.outcome === 'refused') return refused(outcome, context);
  const { websiteId, allowOrigins, source: shown } = outcome.registration;
  // Only the source's kind and public fields come back: never its key.
  return new FastResponse(JSON.stringify(shown === null ? { websiteId, allowOrigins } : { websiteId, allowOrigins, source: shown }), {
    status: outcome.outcome === 'created' ? 201 : 200,
    headers: { ...NO_STORE, 'Content-Type': 'application/json' },
  });
}

const NO_STORE = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

function refused(refusal: Refusal, context: ResponseContext): Response {
  const headers: Record<string, string> =
    refusal.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(refusal.retryAfterSeconds) };
  if (refusal.status === 401) headers['WWW-Authenticate'] = 'Bearer';
  return errorResponse(refusal.status, refusal.message, context, headers);
}

/** The one path segment after the prefix, decoded; null for none, more than one, or a bad encoding. */
function readPathId(pathname: string): string | null {
  const encoded = pathname.slice(WEBSITES_PATH.length);
  if (encoded === '' || encoded.includes('/')) return null;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null;
  }
}

/** `Bearer <token>` (scheme in any case); the token's shape is the registry's to judge. */
function readBearer(header: string | null): string | null {
  const match = header === null ? null : /^Bearer +(\S+) *$/i.exec(header);
  return match ? match[1]! : null;
}

type Body =
  | { fields: { allowOrigins?: readonly string[] | null; hourlyBudget?: number; source?: SourceSettings } }
  | { status: 400 | 413; error: string };

/** Nothing, or a JSON object of the known fields; the registry checks their values. */
async function readBody(request: Request): Promise<Body> {
  // A body that breaks off is no body: read as empty, it would register with any origin.
  const text = await readCappedText(request, MAX_REGISTRATION_BODY_BYTES).catch(() => null);
  if (text === null) return { status: 400, error: 'The body could not be read (the connection broke off); nothing was changed. Try again' };
  if (text === undefined) return { status: 413, error: `The body must be at most ${MAX_REGISTRATION_BODY_BYTES / 1024} KB of JSON` };
  if (text.trim() === '') return { fields: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { status: 400, error: 'The body must be JSON like { "allowOrigins": ["https://shop.example"] }, or empty' };
  }
  if (!isPlainObject(json))
    return { status: 400, error: 'The body must be a JSON object like { "allowOrigins": ["https://shop.example"] }' };
  const unknown = Object.keys(json).filter((field) => !BODY_FIELDS.includes(field));
  if (unknown.length > 0) {
    return { status: 400, error: `Unknown field(s) ${unknown.slice(0, 4).join(', ')}: the body takes ${BODY_FIELDS.join(', ')}` };
  }
  const { allowOrigins, hourlyBudget } = json;
  if (allowOrigins !== undefined && allowOrigins !== null && !Array.isArray(allowOrigins)) {
    return { status: 400, error: 'allowOrigins must be a list of origins like ["https://shop.example"], or null for any origin' };
  }
  if (hourlyBudget !== undefined && typeof hourlyBudget !== 'number') return { status: 400, error: 'hourlyBudget must be a whole number' };
  const fields = { allowOrigins: allowOrigins as string[] | null | undefined, hourlyBudget };
  if (json.source === undefined) return { fields };
  const source = readRequestedSource(json.source);
  return 'message' in source ? { status: 400, error: source.message } : { fields: { ...fields, source: source.source } };
}
