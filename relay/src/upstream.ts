import { parseRetryAfter, realtimeUrl } from '../../realtime/client.js';
import type { RealtimeErrorKind } from '../../realtime/errors.js';
import { parseReport, type RealtimeReport } from '../../realtime/report.js';
import type { RelayedWebsite } from './config.js';
import { readBodyText } from './read-body-text.js';
import { Redactor } from './redactor.js';

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** An answer of the service is a few dozen bytes; anything far larger is not one. */
export const MAX_UPSTREAM_BODY_BYTES = 16 * 1024;
/** Shorter than the widget's own 10 s, so a browser gets the relay's stale answer rather than its own timeout. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 5_000;
const UPSTREAM_MESSAGE_MAX_LENGTH = 160;

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
      response = await Promise.race([timedOut, fetch(realtimeUrl(upstream, website.id), {
        // The only place the token ever goes.
        headers: { Authorization: `Bearer ${website.token}`, Accept: 'application/json' },
        signal: attempt.signal,
        // A redirect elsewhere would carry the token along; refuse to follow it.
        redirect: 'manual',
      })]);
      body = await Promise.race([timedOut, readBodyText(response, MAX_UPSTREAM_BODY_BYTES)]);
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

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function invalid(status: number, reason: string): UpstreamResult {
  return { failure: { kind: 'invalid-response', status, retryAfterMs: null, reason } };
}

/** Status → the widget's error kind, with the service's own words when it sent some. */
function statusFailure(response: Response, body: string, nowMs: number, token: string): UpstreamFailure {
  const { status } = response;
  const said = serviceMessage(body, token);
  const answered = `answered ${status}${said ? ` "${said}"` : ''}`;
  const failure = (kind: RealtimeErrorKind, advice = '', retryAfterMs: number | null = null): UpstreamFailure => ({
    kind,
    status,
    retryAfterMs,
    reason: `${answered}${advice}`,
  });
  if (status === 401 || status === 403) return failure('unauthorized', ': check this website\'s token in the relay config');
  if (status === 404) return failure('not-found', ': check this website\'s id in the relay config');
  if (status === 400) return failure('bad-request');
  if (status === 429) return failure('rate-limited', ': the plan\'s hourly limit is used up', parseRetryAfter(response.headers, nowMs));
  if (status >= 300 && status < 400) return failure('invalid-response', ': set upstream to the final URL, the relay does not follow redirects');
  if (status >= 500) return failure('server');
  return failure('invalid-response');
}

/**
 * `{ "error": "…" }` or `{ "message": "…" }`, cleaned of control characters, of the token, and
 * shortened: in that order, so shortening can never cut a token into a piece no redactor knows.
 */
function serviceMessage(body: string, token: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const { error, message } = json as Record<string, unknown>;
  const text = typeof error === 'string' ? error : message;
  if (typeof text !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex
  // Quotes and control characters would break the quoting of the message or a log line.
  const clean = new Redactor([token]).redact(text).replace(/[\u0000-\u001f\u007f-\u009f"\s]+/g, ' ').trim();
  if (!clean) return undefined;
  return clean.length > UPSTREAM_MESSAGE_MAX_LENGTH ? `${clean.slice(0, UPSTREAM_MESSAGE_MAX_LENGTH)}…` : clean;
}
