import { readCappedText } from '../../server-kit/capped-body.js';
import { DeadlineExceeded, withDeadline } from '../../server-kit/deadline.js';
import { errorCode } from '../../server-kit/error-code.js';
import { errorKindForStatus, type RealtimeErrorKind } from '../../src/contract/errors.js';
import { parseReport, type RealtimeReport } from '../../src/contract/report.js';
import { realtimeUrl } from '../../src/contract/request.js';
import { parseRetryAfter } from '../../src/contract/retry-after.js';
import rules from '../../src/contract/rules.json' with { type: 'json' };
import { readServiceWords } from '../../src/contract/service-message.js';
import { type After, systemTimers } from '../../src/contract/timers.js';
import type { Redactor } from './redaction.js';

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** An answer of the service is a few dozen bytes; anything far larger is not one. */
export const MAX_UPSTREAM_BODY_BYTES = rules.maxUpstreamBodyBytes;
/** Shorter than the widget's own 10 s, so a browser gets the relay's stale answer rather than its own timeout. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = rules.upstreamTimeoutMs;

export interface UpstreamFailure {
  /** The widget's error kinds, so the widget's back-off policy (`retryDelay`) applies unchanged. */
  readonly kind: RealtimeErrorKind;
  /** The service's HTTP status; null when no answer came (network, timeout). */
  readonly status: number | null;
  /** How long the service asked us to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | null;
  /** What went wrong, in the relay's own words, as the end of "the analytics service …": fit for browsers. */
  readonly reason: string;
  /** What the service said about it, made safe for a log line (never for an answer); null when it said nothing. */
  readonly said: string | null;
}

export type UpstreamResult = { readonly report: RealtimeReport } | { readonly failure: UpstreamFailure };

export interface UpstreamRequest {
  readonly upstream: string;
  /** What the contract's service needs of a website (a type of its own, so this module needs nothing of the config's). */
  readonly website: { readonly id: string; readonly token: string };
  readonly fetch: FetchFunction;
  readonly now: () => number;
  readonly timeoutMs: number;
  /** What the timeout runs on: the relay's injected timers; the system's when absent. */
  readonly timers?: After;
  /** Cleans what the service says of every secret the relay holds, in every known encoding. */
  readonly redactor: Redactor;
}

/** Asks the service once for a website's report; never rejects. Only a report `parseReport` accepts comes back. */
export async function fetchUpstreamReport({
  upstream,
  website,
  fetch,
  now,
  timeoutMs,
  timers,
  redactor,
}: UpstreamRequest): Promise<UpstreamResult> {
  const exchanged = await requestUpstream({ fetch, timeoutMs, timers }, realtimeUrl(upstream, website.id), {
    // The only place the token ever goes.
    headers: { Authorization: `Bearer ${website.token}`, Accept: 'application/json' },
  });
  if ('failure' in exchanged) return exchanged;
  const { response, body } = exchanged;
  if (!response.ok) return { failure: statusFailure(response, body, now(), redactor) };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return invalid(response.status, 'sent a body that is not JSON');
  }
  const report = parseReport(json, website.id);
  return typeof report === 'string' ? invalid(response.status, `sent an invalid report: ${report}`) : { report };
}

/** What every request to an analytics service needs from the relay: its fetch, and how long to wait. */
export interface UpstreamCall {
  readonly fetch: FetchFunction;
  readonly timeoutMs: number;
  /** What the timeout runs on: the relay's injected timers; the system's when absent. */
  readonly timers?: After;
}

export type UpstreamExchange = { readonly response: Response; readonly body: string } | { readonly failure: UpstreamFailure };

/**
 * One request to an analytics service and its whole (capped) body, or the failure that ended it:
 * no answer in time, no connection, or a body too large to be an answer. Never rejects, never
 * follows a redirect (which would carry the credentials along). Every source's requests go here.
 */
export async function requestUpstream(call: UpstreamCall, url: string, init: RequestInit): Promise<UpstreamExchange> {
  const { fetch, timeoutMs, timers = systemTimers } = call;
  try {
    // A fetch that ignores its signal (a runtime that cancelled the work of a departed client)
    // must not hold every later browser: the attempt ends at the timeout whatever fetch does.
    const { response, body } = await withDeadline(timers, timeoutMs, 'timeout', async (signal) => {
      const answer = await fetch(url, { ...init, signal, redirect: 'manual' });
      return { response: answer, body: await readCappedText(answer, MAX_UPSTREAM_BODY_BYTES) };
    });
    if (body === undefined) return invalid(response.status, `sent an answer larger than ${MAX_UPSTREAM_BODY_BYTES / 1024} KB`);
    return { response, body };
  } catch (cause) {
    return { failure: transportFailure(cause, timeoutMs) };
  }
}

function transportFailure(cause: unknown, timeoutMs: number): UpstreamFailure {
  if (cause instanceof DeadlineExceeded)
    return { kind: 'timeout', status: null, retryAfterMs: null, reason: `did not answer within ${timeoutMs / 1000} s`, said: null };
  // Only the error code (ECONNREFUSED, ENOTFOUND…): a custom fetch's message could hold anything.
  const code = errorCode(cause);
  const safeCode = code && /^[A-Z0-9_]{1,40}$/.test(code) ? code : undefined;
  return {
    kind: 'network',
    status: null,
    retryAfterMs: null,
    reason: `could not be reached${safeCode ? ` (${safeCode})` : ''}`,
    said: null,
  };
}

/** An answer that is no answer: the wrong shape, or a count no website can have. */
export function invalid(status: number, reason: string): { readonly failure: UpstreamFailure } {
  return { failure: { kind: 'invalid-response', status, retryAfterMs: null, reason, said: null } };
}

/** Status → the widget's error kind and what to fix, in our words; the service's own words apart, for the log. */
export function statusFailure(response: Response, body: string, nowMs: number, redactor: Redactor): UpstreamFailure {
  const { status } = response;
  const kind = errorKindForStatus(status);
  const text = readServiceWords(body, response.headers.get('content-type'));
  return {
    kind,
    status,
    retryAfterMs: kind === 'rate-limited' ? parseRetryAfter(response.headers, nowMs) : null,
    reason: `answered ${status}${advice(kind, status)}`,
    said: text === null ? null : redactor.words(text),
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
