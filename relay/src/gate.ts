/**
 * What keeps an instance from asking upstream yet, from the most general to the most specific.
 * (A cause, not a reason: in the relay a failure's `reason` is its own words for what went wrong.)
 */
export const GATE_CAUSES = ['back-off', 'budget', 'store-down', 'claim'] as const;
export type GateCause = (typeof GATE_CAUSES)[number];

/**
 * When this instance may next ask upstream for a website, and why not sooner: each cause closes
 * the gate until a time of its own, and the latest of them rules.
 *
 * - `back-off`: the fleet's next attempt (from the store): an interval after an answer, longer after failures;
 * - `budget`: this instance found the fleet's hourly budget spent: room comes then;
 * - `store-down`: the store failed: looked at again then;
 * - `claim`: another instance held the claim past the wait: asked again then.
 *
 * A cause holds from `close` until `open`, even once its time has passed: a store that failed
 * still counts as down until it answers again, a fruitless wait on a claim until the claim ends.
 */
export class Gate {
  readonly #until = new Map<GateCause, number>();

  /** Closed for `cause` until `untilMs`, whatever time it held before. */
  close(cause: GateCause, untilMs: number): void {
    this.#until.set(cause, untilMs);
  }

  /** `cause` holds no more. */
  open(cause: GateCause): void {
    this.#until.delete(cause);
  }

  /** Whether `cause` holds (closed and not opened since), whether or not its time has passed. */
  isClosed(cause: GateCause): boolean {
    return this.#until.has(cause);
  }

  /** Whether `cause` holds and its time is still to come at `nowMs`. */
  isClosedAt(cause: GateCause, nowMs: number): boolean {
    return (this.#until.get(cause) ?? Number.NEGATIVE_INFINITY) > nowMs;
  }

  /** Whether every cause's time has come at `nowMs`. */
  isOpen(nowMs: number): boolean {
    return this.holding(nowMs) === null;
  }

  /** When the gate opens: the latest time of any cause, or null when none holds. */
  opensAtMs(): number | null {
    return this.#latest()?.atMs ?? null;
  }

  /**
   * The cause that keeps the gate closed at `nowMs` (the latest; on a tie, the most specific, so
   * a spent budget the store also wrote as the next attempt is still named a budget), or null.
   */
  holding(nowMs: number): GateCause | null {
    const latest = this.#latest();
    return latest && latest.atMs > nowMs ? latest.cause : null;
  }

  #latest(): { readonly atMs: number; readonly cause: GateCause } | null {
    let latest: { atMs: number; cause: GateCause } | null = null;
    for (const cause of GATE_CAUSES) {
      const atMs = this.#until.get(cause);
      if (atMs !== undefined && (latest === null || atMs >= latest.atMs)) latest = { atMs, cause };
    }
    return latest;
  }
}
