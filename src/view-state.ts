import type { RealtimeReport } from './contract/report.js';
import { REQUEST_TIMEOUT_MS } from './realtime/client.js';
import { CLOCK_SKEW_TOLERANCE_MS, type FeedSnapshot } from './realtime/feed.js';

/**
 * - `loading`: no answer yet on this page (a cached count may already show);
 * - `live`: a fresh count: the last request, within an interval (and its timeout), got it;
 * - `stale`: the last good count, while refreshes fail or cannot be made (offline, hidden);
 * - `unavailable`: nothing to show (configuration error, no usable count, or the count outlived max-age).
 */
export type WidgetState = 'loading' | 'live' | 'stale' | 'unavailable';

/** What a feed's snapshot means for an element at some time. */
export interface FeedView {
  state: WidgetState;
  /** The report still young enough to show, if any (its count may be below `min`). */
  report: RealtimeReport | null;
  /** Device time at which the view changes by time alone (live turns stale, a count expires), if any. */
  changesAt: number | null;
}

/** What the element shows. */
export interface WidgetView extends FeedView {
  /** The sentence shows (or would, held out): `min` as the steady-display rule applies it. */
  shown: boolean;
}

export const UNAVAILABLE: FeedView = { state: 'unavailable', report: null, changesAt: null };

/** Pure: what a feed snapshot means at device time `now`. */
export function feedView(snapshot: FeedSnapshot | null, now: number, maxAgeMs: number, intervalMs: number): FeedView {
  if (!snapshot || snapshot.stopped) return UNAVAILABLE;
  const { report, fetchedAt, attemptedAt, failure, settled } = snapshot;
  // A fetch time in the future means the device clock moved back: the age is unknowable, so the count is not shown.
  const usable = report && fetchedAt !== null && now <= fetchedAt + maxAgeMs && fetchedAt <= now + CLOCK_SKEW_TOLERANCE_MS;
  if (!usable) return settled ? UNAVAILABLE : { state: 'loading', report: null, changesAt: null };
  const expiresAt = fetchedAt + maxAgeMs;
  const overdueAt = (attemptedAt ?? fetchedAt) + intervalMs + REQUEST_TIMEOUT_MS;
  const state = failure || (settled && now > overdueAt) ? 'stale' : settled ? 'live' : 'loading';
  const changesAt = state === 'live' ? Math.min(overdueAt + 1, expiresAt) : expiresAt;
  return { state, report, changesAt };
}
