import { type Environment, environment } from './environment.js';
import { RealtimeError, type RealtimeErrorKind } from './errors.js';
import { parseReport, type RealtimeReport } from './report.js';

export const REQUEST_TIMEOUT_MS = 10_000;
const SERVER_MESSAGE_MAX_LENGTH = 200;

export interface RealtimeRequest {
  /** Origin (and optional path prefix) of the service or of a relay, without a trailing slash. */
  apiBase: string;
  websiteId: string;
  /** Sent only as `Authorization: Bearer <token>`; no header at all when absent (same-origin relay). */
  token?: string | undefined;
  signal?: AbortSignal | undefined;
  env?: Environment | undefined;
  timeoutMs?: number | undefined;
}

/** `{apiBase}/api/v1/realtime?websiteId=…`: the token never goes into a URL. */
export function realtimeUrl(apiBase: string, websiteId: string): string {
  return `${apiBase}/api/v1/realtime?${new URLSearchParams({ websiteId })}`;
}

/** A report and how old it already was on arrival (a relay or CDN cache says so in `Age`). */
export interface RealtimeAnswer {
  report: RealtimeReport;
  ageMs: number;
  /** Older than the `max-age` it came with: a relay serving its last good count while the service fails. */
  stale: boolean;
}

/** An `Age` older than this is no relay's honest answer: it is ignored. */
const MAX_TRUSTED_AGE_MS = 24 * 60 * 60_000;

/** Asks the service once for the current visitor report; rejects with a `RealtimeError`. */
export async function fetchRealtimeReport(request: RealtimeRequest): Promise<RealtimeReport> {
  return (await fetchRealtimeAnswer(request)).report;
}

/** Like `fetchRealtimeReport`, with the answer's age. */
export async function fetchRealtimeAnswer(request: RealtimeRequest): Promise<RealtimeAnswer> {
  const { apiBase, websiteId, token, signal, env = environment(), timeoutMs = REQUEST_TIMEOUT_MS } = request;
  const url = realtimeUrl(apiBase, websiteId);
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;

  const attempt = new AbortController();
  let timedOut = false;
  const timer = env.setTimeout(() => {
    timedOut = true;
    attempt.abort();
  }, timeoutMs);
  const forwardAbort = () => attempt.abort(signal?.reason);
  signal?.addEventListener('abort', forwardAbort);
  if (signal?.aborted) forwardAbort();

  try {
    let response: Response;
    let body: string;
    try {
      response = await env.fetch(url, {
        headers,
        signal: attempt.signal,
        credentials: 'omit',
        cache: 'no-store',
      });
      // The body can fail too (connection dropped, or our timeout) and means the same.
      body = await response.text();
    } catch (cause) {
      throw transportError(cause, url, timedOut, timeoutMs, signal);
    }
    if (!response.ok) throw statusError(response, body, { url, websiteId, token, now: env.now() });

    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw invalid(url, 'not JSON', response.status);
    }
    const report = parseReport(json, websiteId);
    if (typeof report === 'string') throw invalid(url, report, response.status);
    const age = Number(response.headers.get('age') ?? 0) * 1000;
    const ageMs = Number.isSafeInteger(age) && age > 0 && age <= MAX_TRUSTED_AGE_MS ? age : 0;
    const freshFor = /(?:^|,)\s*max-age=(\d+)/i.exec(response.headers.get('cache-control') ?? '')?.[1];
    return { report, ageMs, stale: freshFor !== undefined && ageMs > Number(freshFor) * 1000 };
  } finally {
    env.clearTimeout(timer);
    signal?.removeEventListener('abort', forwardAbort);
  }
}

function transportError(
  cause: unknown,
  url: string,
  timedOut: boolean,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): unknown {
  // Our caller cancelled: not a failure of the service, so pass the abort through untouched.
  if (signal?.aborted) return cause;
  return timedOut
    ? new RealtimeError({ kind: 'timeout', message: `No answer from ${url} in ${timeoutMs / 1000} s; retrying.` })
    : new RealtimeError({ kind: 'network', message: `Cannot reach ${url} (offline or CORS): check api-base.` });
}

function invalid(url: string, reason: string, status: number): RealtimeError {
  return new RealtimeError({ kind: 'invalid-response', status, message: `Invalid answer from ${url}: ${reason}. Check api-base.` });
}

interface StatusContext {
  url: string;
  websiteId: string;
  token: string | undefined;
  now: number;
}

/** Status → error kind and the attribute that fixes it (configuration errors), or the policy. */
function statusError(response: Response, body: string, { url, websiteId, token, now }: StatusContext): RealtimeError {
  const { status } = response;
  // A server that echoes the token must not get it into the console or an event.
  const message = serverMessage(response, body);
  const said = token ? message?.replaceAll(token, '[token]') : message;
  const prefix = `${status}${said ? ` "${said}"` : ''} from ${url}`;
  const make = (kind: RealtimeErrorKind, advice: string, retryAfterMs: number | null = null) =>
    new RealtimeError({ kind, status, message: `${prefix}: ${advice}`, retryAfterMs });

  if (status === 401 || status === 403) {
    return make('unauthorized', 'check the token attribute: this website\'s API token, or none for a relay.');
  }
  if (status === 400) return make('bad-request', 'set the website-id attribute.');
  if (status === 404) return make('not-found', `no website "${websiteId}": check the website-id attribute and api-base.`);
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers, now);
    return make('rate-limited', 'plan limit reached: raise interval, or use a relay.', retryAfterMs);
  }
  if (status >= 500) return make('server', 'the service failed; retrying.');
  return make('invalid-response', 'unexpected status; check api-base.');
}

/** The service's own words, when it sent some as JSON `{error}`/`{message}` or short plain text. */
function serverMessage(response: Response, body: string): string | null {
  const type = response.headers.get('content-type') ?? '';
  let text: unknown = type.startsWith('text/plain') ? body : null;
  if (type.includes('json')) {
    try {
      const json = JSON.parse(body) as { error?: unknown; message?: unknown } | null;
      text = json?.error ?? json?.message;
    } catch {
      // A broken error body is no reason to hide the status; fall through to no message.
    }
  }
  if (typeof text !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  if (!clean) return null;
  return clean.length > SERVER_MESSAGE_MAX_LENGTH ? `${clean.slice(0, SERVER_MESSAGE_MAX_LENGTH)}…` : clean;
}

/** `Retry-After` as delay-seconds or an HTTP date (read against the server's own `Date` if sent). */
export function parseRetryAfter(headers: Headers, now: number): number | null {
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Only an HTTP date ("Wed, 21 Oct 2026 07:28:00 GMT"): Date.parse also reads "-5 GMT" as a date.
  const at = /^[A-Z][a-z]{2}, \d.* GMT$/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) return null;
  const serverNow = Date.parse(headers.get('date') ?? '');
  return Math.max(0, at - (Number.isNaN(serverNow) ? now : serverNow));
}
