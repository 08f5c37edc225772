import { answerAge, freshFor } from '../contract/cache-headers.js';
import { errorKindForStatus, isConfigurationError, type RealtimeErrorKind } from '../contract/errors.js';
import { parseReport, type RealtimeReport } from '../contract/report.js';
import { realtimeUrl } from '../contract/request.js';
import { retryAfterDelay } from '../contract/retry-after.js';
import rules from '../contract/rules.json' with { type: 'json' };
import { serviceMessage } from '../contract/service-message.js';
import { DEV_MODE } from '../dev-mode.js';
import { type Environment, environment } from './environment.js';
import { RealtimeError } from './errors.js';

/** The contract's element timeout, which the relays' own waits are sized to finish within (rules.json). */
export const REQUEST_TIMEOUT_MS = rules.elementRequestTimeoutMs;

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

/** A report and how old it already was on arrival (a relay or CDN cache says so in `Age`). */
export interface RealtimeAnswer {
  report: RealtimeReport;
  ageMs: number;
  /** Older than the `max-age` it came with: a relay serving its last good count while the service fails. */
  stale: boolean;
}

/** Asks the service once for the current visitor report; rejects with a `RealtimeError`. */
export async function fetchRealtimeReport(request: RealtimeRequest): Promise<RealtimeReport> {
  return (await fetchRealtimeAnswer(request)).report;
}

/** Like `fetchRealtimeReport`, with the answer's age. */
export async function fetchRealtimeAnswer(request: RealtimeRequest): Promise<RealtimeAnswer> {
  const { apiBase, websiteId, token, signal, env = environment(), timeoutMs = REQUEST_TIMEOUT_MS } = request;
  const url = realtimeUrl(apiBase, websiteId);

  // Aborted by the timer, or by our caller's signal.
  const attempt = new AbortController();
  const cancelTimeout = env.after(timeoutMs, () => attempt.abort());
  const forwardAbort = () => attempt.abort(signal?.reason);
  signal?.addEventListener('abort', forwardAbort);
  if (signal?.aborted) forwardAbort();

  try {
    let response: Response;
    let body: string;
    try {
      response = await env.fetch(url, {
        headers: token ? { Authorization: `Bearer ${token}` } : {},
        signal: attempt.signal,
        credentials: 'omit',
        cache: 'no-store',
      });
      // The body can fail too (connection dropped, or our timeout) and means the same.
      body = await response.text();
    } catch (cause) {
      // Our caller cancelled: not a failure of the service, so pass the abort through untouched.
      if (signal?.aborted) throw cause;
      // Otherwise an aborted attempt is our timeout.
      const kind = attempt.signal.aborted ? 'timeout' : 'network';
      throw new RealtimeError({ kind, message: DEV_MODE ? transportMessage(kind, url, timeoutMs) : url });
    }
    if (!response.ok) throw statusError(request, url, response, body);
    const { status, headers } = response;

    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      // Production names the body at fault, as `parseReport` does for JSON that is no object.
      if (DEV_MODE) throw invalid(url, 'not JSON', status);
    }
    const report = parseReport(json, websiteId);
    if (typeof report === 'string') throw invalid(url, report, status);
    const ageMs = answerAge(headers.get('age'));
    // Older than any relay honestly serves, or an age no one can trust: no count to show, as new or as old.
    if (ageMs === null) {
      const message = `${url} sends an Age over a day or not in whole seconds (RFC 9111 §5.1): its count is not shown.`;
      throw new RealtimeError({ kind: 'server', status, message: DEV_MODE ? message : url });
    }
    const maxAgeMs = freshFor(headers.get('cache-control'));
    return { report, ageMs, stale: maxAgeMs !== null && ageMs > maxAgeMs };
  } finally {
    cancelTimeout();
    signal?.removeEventListener('abort', forwardAbort);
  }
}

/** The development build's words for a request that got no answer; production names just the URL. */
function transportMessage(kind: 'timeout' | 'network', url: string, timeoutMs: number): string {
  return kind === 'timeout'
    ? `No answer from ${url} in ${timeoutMs / 1000} s; retrying.`
    : `Cannot reach ${url} (offline or CORS): check api-base.`;
}

function invalid(url: string, reason: string, status: number): RealtimeError {
  const message = DEV_MODE ? `Invalid answer from ${url}: ${reason}. Check api-base.` : `${url}: ${reason}`;
  return new RealtimeError({ kind: 'invalid-response', status, message });
}

/** The answer's status → error kind (the contract's), with the service's own words and the fix. */
function statusError(request: RealtimeRequest, url: string, { status, headers }: Response, body: string): RealtimeError {
  const kind = errorKindForStatus(status);
  // The service's own words (token redacted) only in the development build: production keeps
  // the status, the URL and the attribute to fix, and leaves the redaction code out.
  const said = DEV_MODE && serviceMessage(body, headers.get('content-type'), [request.token]);
  return new RealtimeError({
    kind,
    status,
    message: `${status}${said ? ` "${said}"` : ''} from ${url}: ${advice(kind, request.websiteId)}`,
    // Any status may carry one (503 too); the back-off honours it for 429s only.
    retryAfterMs: retryAfterDelay(headers),
  });
}

/** What to do about a failed answer: the development build says it; production names just the attribute to fix, or the kind. */
function advice(kind: RealtimeErrorKind, websiteId: string): string {
  if (!DEV_MODE) {
    if (kind === 'unauthorized') return 'token';
    return isConfigurationError(kind) ? 'website-id' : kind;
  }
  switch (kind) {
    case 'unauthorized':
      return "check the token attribute: this website's API token, or none for a relay.";
    case 'bad-request':
      return 'set the website-id attribute.';
    case 'not-found':
      return `no website "${websiteId}": check the website-id attribute and api-base.`;
    case 'rate-limited':
      return 'plan limit reached: raise interval, or use a relay.';
    case 'server':
      return 'the service failed; retrying.';
    default:
      return 'unexpected status; check api-base.';
  }
}
