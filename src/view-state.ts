import { CLOCK_SKEW_TOLERANCE_MS, type FeedSnapshot } from './realtime/feed.js';
import type { RealtimeReport } from './realtime/report.js';

/**
 * - `loading`: no answer yet on this page (a cached count may already show);
 * - `live`: a fresh count;
 * - `stale`: the last good count, while refreshes fail;
 * - `unavailable`: nothing to show (configuration error, no usable count, or the count outlived max-age).
 */
export type WidgetState = 'loading' | 'live' | 'stale' | 'unavailable';

export interface WidgetView {
  state: WidgetState;
  /** The report still young enough to show, if any. */
  report: RealtimeReport | null;
  /** Device time after which `report` may no longer be shown. */
  expiresAt: number | null;
}

export const UNAVAILABLE: WidgetView = { state: 'unavailable', report: null, expiresAt: null };

/** Pure: what to show for a feed snapshot at device time `now`. */
export function widgetView(snapshot: FeedSnapshot | null, now: number, maxAgeMs: number): WidgetView {
  if (!snapshot || snapshot.stopped) return UNAVAILABLE;
  const { report, fetchedAt, failure, settled } = snapshot;
  const expiresAt = fetchedAt === null ? null : fetchedAt + maxAgeMs;
  // A fetch time in the future means the device clock moved back: the age is unknowable, so the count is not shown.
  const usable = report !== null && expiresAt !== null && now <= expiresAt && fetchedAt! <= now + CLOCK_SKEW_TOLERANCE_MS;
  if (!usable) return settled ? UNAVAILABLE : { state: 'loading', report: null, expiresAt: null };
  const state = failure ? 'stale' : settled ? 'live' : 'loading';
  return { state, report, expiresAt };
}
