/** Pageviews older than this no longer make a visitor current (docs/realtime-api.md#the-answer). */
export const VISITOR_WINDOW_MS = 3 * 60_000;

// Visitors are grouped by the second of their last pageview, so whole seconds can be
// dropped at once: pruning costs O(seconds in the window), not O(visitors).
const BUCKET_MS = 1_000;

export interface VisitorWindowOptions {
  /** Distinct visitors kept at most; beyond it the least recently seen are forgotten. */
  readonly maxVisitors: number;
  readonly windowMs?: number;
}

/**
 * The unique visitors of one website with a pageview in the last `windowMs`:
 * one entry per visitor (its latest pageview), however many pageviews it made.
 * A pageview exactly `windowMs` old still counts; one a millisecond older does not.
 */
export class VisitorWindow {
  readonly #lastSeenMs = new Map<string, number>();
  readonly #bucketsBySecond = new Map<number, Set<string>>();
  readonly #maxVisitors: number;
  readonly #windowMs: number;
  #prunedBefore = Number.NEGATIVE_INFINITY;

  constructor(options: VisitorWindowOptions) {
    this.#maxVisitors = options.maxVisitors;
    this.#windowMs = options.windowMs ?? VISITOR_WINDOW_MS;
  }

  /** Distinct visitors held in memory, including some not yet pruned. */
  get trackedVisitors(): number {
    return this.#lastSeenMs.size;
  }

  record(visitorId: string, atMs: number, nowMs: number): void {
    this.#prune(nowMs);
    if (atMs < nowMs - this.#windowMs) return; // already outside the window: nothing to count
    const previousMs = this.#lastSeenMs.get(visitorId);
    // A backdated pageview never makes a visitor look older than it is.
    if (previousMs !== undefined && previousMs >= atMs) return;
    if (previousMs !== undefined) this.#removeFromBucket(bucketIndex(previousMs), visitorId);
    this.#lastSeenMs.set(visitorId, atMs);
    this.#bucketFor(atMs).add(visitorId);
    while (this.#lastSeenMs.size > this.#maxVisitors) this.#evictLeastRecentlySeen();
  }

  count(nowMs: number): number {
    this.#prune(nowMs);
    const cutoffMs = nowMs - this.#windowMs;
    // Whole stale seconds are gone; only the second holding the cutoff may mix stale and fresh.
    let staleInEdgeSecond = 0;
    for (const visitorId of this.#bucketOf(cutoffMs) ?? []) {
      if ((this.#lastSeenMs.get(visitorId) ?? cutoffMs) < cutoffMs) staleInEdgeSecond += 1;
    }
    return this.#lastSeenMs.size - staleInEdgeSecond;
  }

  forget(visitorId: string): void {
    const lastSeenMs = this.#lastSeenMs.get(visitorId);
    if (lastSeenMs === undefined) return;
    this.#lastSeenMs.delete(visitorId);
    this.#removeFromBucket(bucketIndex(lastSeenMs), visitorId);
  }

  clear(): void {
    this.#lastSeenMs.clear();
    this.#bucketsBySecond.clear();
  }

  // Drops every second that ended before the cutoff; runs at most once per second of clock time.
  #prune(nowMs: number): void {
    const firstLiveBucket = bucketIndex(nowMs - this.#windowMs);
    if (firstLiveBucket <= this.#prunedBefore) return;
    this.#prunedBefore = firstLiveBucket;
    for (const [index, visitorIds] of this.#bucketsBySecond) {
      if (index >= firstLiveBucket) continue;
      for (const visitorId of visitorIds) this.#lastSeenMs.delete(visitorId);
      this.#bucketsBySecond.delete(index);
    }
  }

  #evictLeastRecentlySeen(): void {
    let oldest: number | undefined;
    for (const index of this.#bucketsBySecond.keys()) {
      if (oldest === undefined || index < oldest) oldest = index;
    }
    if (oldest === undefined) return;
    const visitorIds = this.#bucketsBySecond.get(oldest);
    const victim = visitorIds?.values().next().value;
    if (victim === undefined) return;
    this.#lastSeenMs.delete(victim);
    this.#removeFromBucket(oldest, victim);
  }

  #bucketOf(atMs: number): Set<string> | undefined {
    return this.#bucketsBySecond.get(bucketIndex(atMs));
  }

  #bucketFor(atMs: number): Set<string> {
    const index = bucketIndex(atMs);
    let bucket = this.#bucketsBySecond.get(index);
    if (!bucket) {
      bucket = new Set();
      this.#bucketsBySecond.set(index, bucket);
    }
    return bucket;
  }

  #removeFromBucket(index: number, visitorId: string): void {
    const bucket = this.#bucketsBySecond.get(index);
    if (!bucket) return;
    bucket.delete(visitorId);
    if (bucket.size === 0) this.#bucketsBySecond.delete(index);
  }
}

function bucketIndex(atMs: number): number {
  return Math.floor(atMs / BUCKET_MS);
}
