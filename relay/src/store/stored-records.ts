import { isPlainObject } from '../../../server-kit/config-checks.js';
import { HOUR_MS } from '../../../server-kit/rolling-hour.js';
import { isRealtimeErrorKind } from '../../../src/contract/errors.js';
import { parseReport } from '../../../src/contract/report.js';
import rules from '../../../src/contract/rules.json' with { type: 'json' };
import type { BudgetDecision, SharedAnswer, SharedWebsiteState, StoredFailure } from './relay-store.js';

/**
 * The only readers of what the relay takes back from its store. A store is shared with other
 * processes (an older relay, a neighbour on the same prefix, an operator, an instance whose clock
 * is wrong), so nothing it returns is trusted: each reader returns a valid value whose times are
 * bounded against this instance's clock, or "none".
 */

/** How far ahead of this instance's clock a fleet member's time may be and still count as now. */
export const FUTURE_TOLERANCE_MS = rules.clockToleranceMs;
/** The longest any "not before" time can honestly be away: the back-off's cap, a spent budget's hour. */
export function maxWaitMs(intervalMs: number): number {
  return Math.max(HOUR_MS, intervalMs);
}

export interface ReadingContext {
  readonly websiteId: string;
  readonly nowMs: number;
  readonly intervalMs: number;
}

export type StateReading =
  | { readonly state: SharedWebsiteState; readonly problem: null }
  /** Nothing stored (`problem` null), or something this relay must not use, and why. */
  | { readonly state: null; readonly problem: null | 'not-a-state' | 'from-the-future' };

/** A reason is the relay's own words ("answered 500", "could not be reached (ECONNREFUSED)"): short, unquoted, nothing invisible. */
const OWN_WORDS = /^[^"\\`<>\p{Cc}\p{Cf}\u2028\u2029]{1,200}$/u;

/**
 * A website's state as the store returned it (decoded JSON or its text), checked and bounded: an
 * answer fetched in the future (beyond `FUTURE_TOLERANCE_MS`) refuses the whole state, whose other
 * times came from the same wrong clock; a back-off is cut to `maxWaitMs`.
 */
export function readWebsiteState(raw: unknown, context: ReadingContext): StateReading {
  if (raw === null || raw === undefined) return { state: null, problem: null };
  const value = typeof raw === 'string' ? parseJson(raw) : raw;
  if (!isPlainObject(value)) return { state: null, problem: 'not-a-state' };
  const { answer, failures, nextAttemptAtMs, failure } = value;
  if (!isCount(failures) || typeof nextAttemptAtMs !== 'number' || Number.isNaN(nextAttemptAtMs))
    return { state: null, problem: 'not-a-state' };
  const parsedAnswer = answer === null ? null : readAnswer(answer, context.websiteId);
  const parsedFailure = failure === null ? null : readFailure(failure);
  if (parsedAnswer === undefined || parsedFailure === undefined) return { state: null, problem: 'not-a-state' };
  if (parsedAnswer && parsedAnswer.fetchedAtMs > context.nowMs + FUTURE_TOLERANCE_MS) return { state: null, problem: 'from-the-future' };
  return {
    state: {
      answer: parsedAnswer,
      failures,
      nextAttemptAtMs: Math.min(nextAttemptAtMs, context.nowMs + maxWaitMs(context.intervalMs)),
      failure: parsedFailure,
    },
    problem: null,
  };
}

/** A budget decision as a store returned it; its next room is never before now nor more than an hour away. Null for garbage. */
export function readBudgetDecision(raw: unknown, nowMs: number): BudgetDecision | null {
  if (!isPlainObject(raw)) return null;
  const { taken, nextRoomAtMs } = raw;
  if (typeof taken !== 'boolean' || typeof nextRoomAtMs !== 'number' || Number.isNaN(nextRoomAtMs)) return null;
  return { taken, nextRoomAtMs: Math.min(Math.max(nextRoomAtMs, nowMs), nowMs + HOUR_MS) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function readAnswer(value: unknown, websiteId: string): SharedAnswer | undefined {
  if (!isPlainObject(value)) return undefined;
  const { body, etag, fetchedAtMs } = value;
  if (typeof body !== 'string' || typeof etag !== 'string' || typeof fetchedAtMs !== 'number' || !Number.isFinite(fetchedAtMs)) {
    return undefined;
  }
  if (!/^"[\w-]{1,64}"$/.test(etag) || !isReportBody(body, websiteId)) return undefined;
  return { body, etag, fetchedAtMs };
}

/** Exactly the body the relay writes: the contract's report for this website, serialised (with a source's `windowMinutes`, which `parseReport` keeps). */
function isReportBody(body: string, websiteId: string): boolean {
  if (body.length > 4_096) return false;
  try {
    const report = parseReport(JSON.parse(body), websiteId);
    return typeof report !== 'string' && JSON.stringify(report) === body;
  } catch {
    return false;
  }
}

function readFailure(value: unknown): StoredFailure | undefined {
  if (!isPlainObject(value)) return undefined;
  const { kind, status, reason } = value;
  if (!isRealtimeErrorKind(kind) || typeof reason !== 'string') return undefined;
  if (status !== null && !(isCount(status) && status <= 999)) return undefined;
  // Someone else's words would reach browsers: only ours pass.
  return { kind, status, reason: OWN_WORDS.test(reason) ? reason : 'failed' };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
