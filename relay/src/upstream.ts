import { readCappedText } from '../../server-kit/capped-body.js';
import { errorCode } from '../../server-kit/error-code.js';
import { errorKindForStatus, type RealtimeErrorKind } from '../../src/contract/errors.js';
import { parseReport, type RealtimeReport } from '../../src/contract/report.js';
import { realtimeUrl } from '../../src/contract/request.js';
import { parseRetryAfter } from '../../src/contract/retry-after.js';
import { serviceMessage } from '../../src/contract/service-message.js';
import type { RelayedWebsite } from './config.js';

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** An answer of the service is a few dozen bytes; anything far larger is not one. */
export const MAX_UPSTREAM_BODY_BYTES = 16 * 1024;
/** Shorter than the widget's own 10 s, so a browser gets the relay's stale answer rather than its own timeout. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 5_000;

export interface UpstreamFailure {
  /** The widget's error kinds, so the widget's back-off policy (`retryDelay`) applies unchanged. */
  readonly kind: RealtimeErrorKind;
  /** The service's HTTP status; null when no answer came (network, timeout). */
  readonly status: number | null;
  /** How long the service asked us to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | null;
  /** What went wrong, as the end of "the analytics service …". Holds no token. */
  readonly reason: string;
}

export type UpstreamResult = { readonly report: RealtimeReport } | { readonly failure: UpstreamFailure };

export interface UpstreamRequest {
  readonly upstream: string;
  readonly website: RelayedWebsite;
  readonly fetch: FetchFunction;
  readonly now: () => number;
  readonly timeoutMs: number;
}

/** Asks the service once for a website's report; never rejects. Only a report `parseReport` accepts comes back. */
export async function fetchUpstreamReport({ upstream, website, fetch, now, timeoutMs }: UpstreamRequest): Promise<UpstreamResult> {
  const attempt = new AbortController();
  const timer = setTimeout(() => attempt.abort(), timeoutMs);
  // A fetch that ignores its signal (a runtime that cancelled the work of a departed client)
  // must not hold every later browser: the attempt ends at the timeout whatever fetch does.
  const timedOut = new Promise<never>((_, reject) => attempt.signal.addEventListener('abort', () => reject(new Error('timeout'))));
  timedOut.catch(() => {});
  try {
    let response: Response;
    let body: string | undefined;
    try {
      response = await Promise.race([
        timedOut,
        fetch(realtimeUrl(upstream, website.id), {
          // The only place the token ever goes.
          headers: { Authorization: `Bearer ${website.token}`, Accept: 'application/json' },
          signal: attempt.signal,
          // A redirect elsewhere would carry the token along; refuse to follow it.
          redirect: 'manual',
        }),
      ]);
      body = await Promise.race([timedOut, readCappedText(response, MAX_UPSTREAM_BODY_BYTES)]);
    } catch (cause) {
      return { failure: transportFailure(cause, attempt.signal.aborted, timeoutMs) };
    }
    if (body === undefined) return invalid(response.status, `sent an answer larger than ${MAX_UPSTREAM_BODY_BYTES / 1024} KB`);
    if (!response.ok) return { failure: statusFailure(response, body, now(), website.token) };
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return invalid(response.status, 'sent a body that is not JSON');
    }
    const report = parseReport(json, website.id);
    return typeof report === 'string' ? invalid(response.status, `sent an invalid report: ${report}`) : { report };
  } finally {
    clearTimeout(timer);
  }
}

function transportFailure(cause: unknown, timedOut: boolean, timeoutMs: number): UpstreamFailure {
  if (timedOut) return { kind: 'timeout', status: null, retryAfterMs: null, reason: `did not answer within ${timeoutMs / 1000} s` };
  // Only the error code (ECONNREFUSED, ENOTFOUND…): a custom fetch's message could hold anything.
  const code = errorCode(cause);
  return { kind: 'network', status: null, retryAfterMs: null, reason: `could not be reached${code ? ` (${code})` : ''}` };
}

function invalid(status: number, reason: string): UpstreamResult {
  return { failure: { kind: 'invalid-response', status, retryAfterMs: null, reason } };
}

/** Status → the widget's error kind, with the service's own words when it sent some, and what to fix. */
function statusFailure(response: Response, body: string, nowMs: number, token: string): UpstreamFailure {
  const { status } = response;
  const kind = errorKindForStatus(status);
  const said = serviceMessage(body, response.headers.get('content-type'), [token]);
  return {
    kind,
    status,
    retryAfterMs: kind === 'rate-limited' ? parseRetryAfter(response.headers, nowMs) : null,
    reason: `answered ${status}${said ? ` "${said}"` : ''}${advice(kind, status)}`,
  };
}

function advice(kind: RealtimeErrorKind, status: number): string {
  if (status >= 300 && status < 400) return ': set upstream to the final URL, the relay does not follow redirects';
  switch (kind) {
    case 'unauthorized':
      return ": check this website's token in the relay config";
    case 'not-found':
      return ": check this website's id in the relay config";
    case 'rate-limited':
      return ": the plan's hourly limit is used up";
    default:
      return '';
  }
}
