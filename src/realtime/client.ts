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

/** Asks the service once for the current visitor report; rejects with a `RealtimeError`. */
export async function fetchRealtimeReport(request: RealtimeRequest): Promise<RealtimeReport> {
  const { apiBase, websiteId, token, signal, env = environment(), timeoutMs = REQUEST_TIMEOUT_MS } = request;
  const url = realtimeUrl(apiBase, websiteId);
  const headers: Record<string, string> = { Accept: 'application/json' };
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
    try {
      response = await env.fetch(url, {
        headers,
        signal: attempt.signal,
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch (cause) {
      throw transportError(cause, url, timedOut, timeoutMs, signal);
    }
    const body = await response.text().catch((cause: unknown) => {
      throw transportError(cause, url, timedOut, timeoutMs, signal);
    });
    if (!response.ok) throw statusError(response, body, { url, websiteId, apiBase, now: env.now() });

    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw invalid(url, 'the body is not JSON', response.status);
    }
    const report = parseReport(json, websiteId);
    if (typeof report === 'string') throw invalid(url, report, response.status);
    return report;
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
  if (timedOut) {
    return new RealtimeError({
      kind: 'timeout',
      message: `No answer from ${url} within ${timeoutMs / 1000} s. The service is slow or unreachable; the widget retries with backoff.`,
    });
  }
  return new RealtimeError({
    kind: 'network',
    message: `Could not reach ${url} (offline, DNS, or blocked by CORS). Check the api-base attribute and that the service allows requests from this origin.`,
  });
}

function invalid(url: string, reason: string, status: number): RealtimeError {
  return new RealtimeError({
    kind: 'invalid-response',
    status,
    message: `The answer from ${url} is not a valid realtime report: ${reason}. Check that api-base points at the realtime service or a live-visitors relay.`,
  });
}

interface StatusContext {
  url: string;
  websiteId: string;
  apiBase: string;
  now: number;
}

function statusError(response: Response, body: string, context: StatusContext): RealtimeError {
  const { status } = response;
  const said = serverMessage(response, body);
  const quoted = said ? `: "${said}"` : '';
  const make = (kind: RealtimeErrorKind, message: string, retryAfterMs: number | null = null) =>
    new RealtimeError({ kind, status, message, retryAfterMs });

  switch (status) {
    case 401:
    case 403:
      return make(
        'unauthorized',
        `The service refused the request (${status}${quoted}). Set the token attribute to the API token of website "${context.websiteId}" from the analytics dashboard, or remove it when api-base points at a relay that holds the token.`,
      );
    case 400:
      return make('bad-request', `The service rejected the request (400${quoted}). Set the website-id attribute to your website's identifier.`);
    case 404:
      return make(
        'not-found',
        `The service at ${context.apiBase} knows no website "${context.websiteId}" (404${quoted}). Check the website-id attribute, and api-base if you use a relay.`,
      );
    case 429: {
      const retryAfterMs = parseRetryAfter(response.headers, context.now);
      const wait = retryAfterMs === null ? '' : ` It asked to wait ${Math.ceil(retryAfterMs / 1000)} s.`;
      return make(
        'rate-limited',
        `The plan's hourly request limit is used up (429${quoted}).${wait} Raise the interval attribute, or serve shoppers through a relay that holds the token.`,
        retryAfterMs,
      );
    }
  }
  if (status >= 500) {
    return make('server', `The service failed (${status}${quoted}). The widget keeps the last count and retries with backoff.`);
  }
  return make('invalid-response', `Unexpected status ${status} from ${context.url}${quoted}. Check the api-base attribute.`);
}

/** The service's own words, when it sent some as JSON `{error}`/`{message}` or short plain text. */
function serverMessage(response: Response, body: string): string | null {
  let text: unknown = null;
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      const json = JSON.parse(body) as unknown;
      if (typeof json === 'object' && json !== null) {
        const record = json as Record<string, unknown>;
        text = record.error ?? record.message;
      }
    } catch {
      // A broken error body is no reason to hide the status; fall through to no message.
    }
  } else if (type.startsWith('text/plain')) {
    text = body;
  }
  if (typeof text !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (!clean) return null;
  return clean.length > SERVER_MESSAGE_MAX_LENGTH ? `${clean.slice(0, SERVER_MESSAGE_MAX_LENGTH)}…` : clean;
}

/** `Retry-After` as delay-seconds or an HTTP date (read against the server's own `Date` if sent). */
export function parseRetryAfter(headers: Headers, now: number): number | null {
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  const serverNow = Date.parse(headers.get('date') ?? '');
  return Math.max(0, at - (Number.isNaN(serverNow) ? now : serverNow));
}
