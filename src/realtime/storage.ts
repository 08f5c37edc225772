import type { RealtimeErrorKind } from '../contract/errors.js';
import { parseReport, type RealtimeReport } from '../contract/report.js';
import type { Environment } from './environment.js';

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

/** The persisted state of one website's feed, in localStorage when allowed, else in memory. */
export class FeedStore {
  readonly key: string;
  readonly #env: Environment;
  readonly #websiteId: string;

  constructor(env: Environment, apiBase: string, websiteId: string) {
    this.#env = env;
    this.#websiteId = websiteId;
    this.key = `live-visitors:v${VERSION}:${JSON.stringify([apiBase, websiteId])}`;
  }

  read(): FeedRecord | null {
    let stored: string | null | undefined;
    try {
      stored = this.#env.storage()?.getItem(this.key);
    } catch {
      // Blocked storage: fall back to this page's memory.
    }
    return (stored && parseRecord(stored, this.#websiteId)) || memory.get(this.key) || null;
  }

  write(record: FeedRecord): void {
    memory.set(this.key, record);
    try {
      this.#env.storage()?.setItem(this.key, JSON.stringify(record));
    } catch {
      // Quota or privacy mode: this tab keeps working from memory.
    }
  }
}

/** Storage is shared with every script of the origin: trust nothing read back from it. */
function parseRecord(text: string, websiteId: string): FeedRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  const report = record.report === null ? null : parseReport(record.report, websiteId);
  if (typeof report === 'string') return null;
  const fetchedAt = finiteOrNull(record.fetchedAt);
  if (report && fetchedAt === null) return null;
  // Junk counts as no failure; an absurd count only makes the backoff hit its cap.
  const failures = Math.max(0, Number(record.failures) | 0);
  return {
    report,
    fetchedAt,
    attemptedAt: finiteOrNull(record.attemptedAt),
    retryAt: finiteOrNull(record.retryAt),
    failures,
    failure: parseFailure(record.failure),
  };
}

function finiteOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

const KINDS = new Set<string>(['bad-request', 'not-found', 'rate-limited', 'server', 'network', 'timeout', 'invalid-response']);

function parseFailure(value: unknown): FeedFailure | null {
  if (typeof value !== 'object' || value === null) return null;
  const { kind, status, message } = value as Record<string, unknown>;
  if (typeof kind !== 'string' || !KINDS.has(kind) || typeof message !== 'string') return null;
  return { kind: kind as RealtimeErrorKind, status: typeof status === 'number' ? status : null, message };
}
