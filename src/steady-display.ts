/** How long the sentence keeps appearing, or staying away, once a count crosses `min`. */
export const STEADY_HOLD_MS = 3 * 60_000;

/**
 * Keeps the sentence from blinking when the count moves around `min`. The rule:
 * - the first count at or above `min` shows at once (a cached one too);
 * - once shown, a count below `min` hides the sentence only when it has been up for 3 minutes;
 *   until then the sentence shows that latest count;
 * - once hidden by a low count, it comes back only after 3 minutes away;
 * - a count of 0 is never shown: it hides the sentence at once;
 * - no count at all (none yet, or too old) hides it too, and the next count shows at once;
 * - a new `min` (the page's own choice, not the count's move) applies at once.
 */
export class SteadyDisplay {
  #shown = false;
  /** Device time of the last switch made by a count; -Infinity lets the next switch happen at once. */
  #since = Number.NEGATIVE_INFINITY;
  #min = 0;

  /** Whether to show the sentence for the latest count (null: none) at device time `now`. */
  shows(count: number | null, min: number, now: number): boolean {
    if (count === null || min !== this.#min) this.#since = Number.NEGATIVE_INFINITY;
    this.#min = min;
    // No count hides the sentence without starting a hold: the next count shows at once.
    if (count === null) {
      this.#shown = false;
      return false;
    }
    const wanted = count >= min;
    // A 0 hides at once; any other switch waits out the hold.
    if (wanted !== this.#shown && (!count || now - this.#since >= STEADY_HOLD_MS)) {
      this.#shown = wanted;
      this.#since = now;
    }
    return this.#shown;
  }
}
