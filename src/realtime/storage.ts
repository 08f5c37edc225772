import type { RealtimeErrorKind } from '../contract/errors.js';
import { parseReport, type RealtimeReport } from '../contract/report.js';
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

const VERSION = 1;
/** Used when localStorage is blocked or full, so reconnecting elements still reuse the last answer. */
const memory = new Map<string, FeedRecord>();

/** Where one website's feed is persisted, for every tab of the origin. */
export function recordKey(apiBase: string, websiteId: string): string {
  return `live-visitors:v${VERSION}:${JSON.stringify([apiBase, websiteId])}`;
}

/** The persisted state of one website's feed: from localStorage when allowed, else from this page's memory. */
export function readRecord(env: Environment, key: string, websiteId: string): FeedRecord | null {
  const stored = withStorage(env, (storage) => storage.getItem(key));
  return (stored && parseRecord(stored, websiteId)) || memory.get(key) || null;
}

export function writeRecord(env: Environment, key: string, record: FeedRecord): void {
  memory.set(key, record);
  withStorage(env, (storage) => storage.setItem(key, JSON.stringify(record)));
}

/** Storage is shared with every script of the origin: trust nothing read back from it. */
function parseRecord(text: string, websiteId: string): FeedRecord | null {
  try {
    // Not JSON, or JSON `null` (whose `.report` throws): no record.
    const record = JSON.parse(text) as Record<string, unknown>;
    const report = record.report === null ? null : parseReport(record.report, websiteId);
    const fetchedAt = finiteOr(record.fetchedAt, null);
    if (typeof report === 'string' || (report && fetchedAt === null)) return null;
    return {
      report,
      fetchedAt,
      attemptedAt: finiteOr(record.attemptedAt, null),
      retryAt: finiteOr(record.retryAt, null),
      // Junk counts as no failure; an absurd count only makes the backoff hit its cap.
      failures: Math.max(0, Number(record.failures) | 0),
      failure: parseFailure(record.failure),
    };
  } catch {
    return null;
  }
}

/** The kinds a record may hold (a 401's never is). Only strings are in it, so `has` checks the type too. */
const KINDS = new Set<unknown>(['bad-request', 'not-found', 'rate-limited', 'server', 'network', 'timeout', 'invalid-response']);

function parseFailure(value: unknown): FeedFailure | null {
  if (typeof value !== 'object' || value === null) return null;
  const { kind, status, message } = value as Record<string, unknown>;
  if (!KINDS.has(kind) || typeof message !== 'string') return null;
  return { kind: kind as RealtimeErrorKind, status: finiteOr(status, null), message };
}
