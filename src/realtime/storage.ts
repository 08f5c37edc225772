import { isConfigurationError, isRealtimeErrorKind, type RealtimeErrorKind } from '../contract/errors.js';
import { parseReport, type RealtimeReport } from '../contract/report.js';
import rules from '../contract/rules.json' with { type: 'json' };
import { finiteOr } from '../finite.js';
import { type Environment, withStorage } from './environment.js';

/** A failure as remembered (and shared with other tabs): what the element needs to show it. */
export interface FeedFailure {
  kind: RealtimeErrorKind;
  status: number | null;
  message: string;
}

/**
 * What a feed knows, persisted so page loads and other tabs reuse it. Holds no token: the
 * count of a website is the same whoever asked for it.
 */
export interface FeedRecord {
  report: RealtimeReport | null;
  /**
   * Device time at which the last good report was fetched (here or in another tab), less its age
   * on arrival (a relay's or CDN's `Age`). Freshness is judged by it, never by `report.timestamp`.
   */
  fetchedAt: number | null;
  /** Device time of the last request (here or in another tab), good or not. */
  attemptedAt: number | null;
  /** While failing: no tab asks before this device time. */
  retryAt: number | null;
  /** Failures in a row since the last good report. */
  failures: number;
  failure: FeedFailure | null;
}

export const EMPTY_RECORD: FeedRecord = { report: null, fetchedAt: null, attemptedAt: null, retryAt: null, failures: 0, failure: null };

/** A device clock that jumped back makes a record look written in the future: distrust it past this. */
export const CLOCK_SKEW_TOLERANCE_MS = 60_000;
/**
 * A 404 or 400 stops this page's feed for good, and later page loads for this long, so a template
 * with a wrong website-id cannot spend the plan one page view at a time. Fixing the website-id
 * changes the storage key, so a fix shows at once.
 */
export const CONFIGURATION_PAUSE_MS = 60 * 60_000;
/** No tab waits longer than the contract's day ceiling after a failure: a later retry time is a wrong clock's. */
const LONGEST_WAIT_MS = rules.dayCeilingMs;
/** The backoff reaches its cap long before this; more says nothing more. */
const MAX_FAILURES = 100;
/** Longer than any message a feed writes (the service's words are cut at 200 characters). */
const MAX_MESSAGE_LENGTH = 1000;

const VERSION = 1;
/** Used when localStorage is blocked or full, so reconnecting elements still reuse the last answer. */
const memory = new Map<string, string>();

/** Where one website's feed is persisted, for every tab of the origin. */
export function recordKey(apiBase: string, websiteId: string): string {
  return `live-visitors:v${VERSION}:${JSON.stringify([apiBase, websiteId])}`;
}

/**
 * The persisted state of one website's feed, from localStorage when allowed, else from this
 * page's memory: valid and bounded at device time `now`, or null. The one way a feed reads it.
 */
export function readRecord(env: Environment, key: string, websiteId: string): FeedRecord | null {
  const now = env.now();
  const stored = withStorage(env, (storage) => storage.getItem(key));
  return parseRecord(stored, websiteId, now) ?? parseRecord(memory.get(key), websiteId, now);
}

export function writeRecord(env: Environment, key: string, record: FeedRecord): void {
  const text = JSON.stringify(record);
  memory.set(key, text);
  withStorage(env, (storage) => storage.setItem(key, text));
}

/**
 * Storage is shared with every script of the origin, and written by browsers whose clock may
 * have been wrong: trust nothing read back from it. Returns a record whose report is the
 * website's, whose times are numbers, whose pause ends within the longest wait a tab sets from
 * `now` (an hour for a 404 or 400), or null.
 */
export function parseRecord(text: string | null | undefined, websiteId: string, now: number): FeedRecord | null {
  try {
    // Not JSON, or JSON `null` (whose `.report` throws): no record.
    const record = JSON.parse(text ?? '') as Record<string, unknown>;
    const report = record.report === null ? null : parseReport(record.report, websiteId);
    const fetchedAt = finiteOr(record.fetchedAt, null);
    if (typeof report === 'string' || (report && fetchedAt === null)) return null;
    const failure = parseFailure(record.failure);
    const longestWait = failure && isConfigurationError(failure.kind) ? CONFIGURATION_PAUSE_MS : LONGEST_WAIT_MS;
    return {
      report,
      fetchedAt: report ? fetchedAt : null,
      attemptedAt: notAfter(record.attemptedAt, now + CLOCK_SKEW_TOLERANCE_MS),
      // A pause set by a clock that ran ahead would outlast its reason: past its bound, it is over.
      retryAt: notAfter(record.retryAt, now + longestWait + CLOCK_SKEW_TOLERANCE_MS),
      // Junk counts as no failure; an absurd count only makes the backoff hit its cap.
      failures: Number.isInteger(record.failures) ? Math.min(MAX_FAILURES, Math.max(0, record.failures as number)) : 0,
      failure,
    };
  } catch {
    return null;
  }
}

/** A time no later than `latest`, or null. */
function notAfter(value: unknown, latest: number): number | null {
  const time = finiteOr(value, null);
  return time !== null && time <= latest ? time : null;
}

function parseFailure(value: unknown): FeedFailure | null {
  if (typeof value !== 'object' || value === null) return null;
  const { kind, status, message } = value as Record<string, unknown>;
  // A 401 is about one page's token, which storage never holds: no record holds one either.
  if (!isRealtimeErrorKind(kind) || kind === 'unauthorized' || typeof message !== 'string') return null;
  return { kind, status: finiteOr(status, null), message: message.slice(0, MAX_MESSAGE_LENGTH) };
}
