/** Plan limits are counted over this rolling period (spec part 8: requests per hour). */
export const RATE_WINDOW_MS = 60 * 60_000;

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests still allowed right now, after this one. */
  readonly remaining: number;
  /** When the oldest counted request leaves the window, freeing one slot. */
  readonly slotFreesAtMs: number;
}

/**
 * A rolling-hour limit: each accepted request counts for exactly one hour after it
 * was made, so there is no boundary at which a client may send two hours' worth at
 * once. Refused requests are not counted, so a client that backs off gets back in.
 * Memory: at most `limit` timestamps per key, and keys are the configured websites.
 */
export class SlidingWindowRateLimiter {
  readonly #acceptedAtMs = new Map<string, number[]>();
  readonly #windowMs: number;

  constructor(windowMs = RATE_WINDOW_MS) {
    this.#windowMs = windowMs;
  }

  /** Counts a request for `key` if the limit allows it. */
  take(key: string, limit: number, nowMs: number): RateDecision {
    const accepted = this.#acceptedAtMs.get(key) ?? [];
    // A request made exactly one window ago has just left it.
    while (accepted.length > 0 && (accepted[0] ?? nowMs) <= nowMs - this.#windowMs) accepted.shift();
    const allowed = accepted.length < limit;
    if (allowed) accepted.push(nowMs);
    this.#acceptedAtMs.set(key, accepted);
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - accepted.length),
      slotFreesAtMs: (accepted[0] ?? nowMs) + this.#windowMs,
    };
  }

  /** Timestamps held, for the memory-bound check in the stats. */
  get trackedRequests(): number {
    let total = 0;
    for (const accepted of this.#acceptedAtMs.values()) total += accepted.length;
    return total;
  }

  clear(): void {
    this.#acceptedAtMs.clear();
  }
}
