export const HOUR_MS = 60 * 60_000;

/**
 * Counts events over a rolling hour, at most `limit` of them: each counted event holds its slot
 * for exactly one hour, so there is no boundary at which two hours' worth fit at once. A refused
 * event is not counted. Holds at most `limit` timestamps.
 */
export class RollingHourLimit {
  readonly limit: number;
  readonly #takenAt: number[] = [];

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Counts one event at `nowMs` if the limit allows it; false (and nothing counted) otherwise. */
  tryTake(nowMs: number): boolean {
    if (this.used(nowMs) >= this.limit) return false;
    this.#takenAt.push(nowMs);
    return true;
  }

  /** Uncounts the latest event: one counted for something that then did not happen. */
  giveBack(): void {
    this.#takenAt.pop();
  }

  /** Events counted in the hour up to `nowMs`. */
  used(nowMs: number): number {
    // The window is (now - 1 h, now]: an event exactly an hour old no longer counts.
    let expired = 0;
    while (expired < this.#takenAt.length && this.#takenAt[expired]! <= nowMs - HOUR_MS) expired += 1;
    if (expired > 0) this.#takenAt.splice(0, expired);
    return this.#takenAt.length;
  }

  /** When the next event fits: `nowMs` when there is room, else when the oldest counted one leaves the hour. */
  nextRoomAt(nowMs: number): number {
    const used = this.used(nowMs);
    if (used < this.limit) return nowMs;
    // A limit of 0 never has room: say an hour, as a full window would.
    return (this.#takenAt[used - this.limit] ?? nowMs) + HOUR_MS;
  }

  /** When the oldest counted event leaves the hour (an hour from `nowMs` when none is counted). */
  oldestLeavesAt(nowMs: number): number {
    this.used(nowMs);
    return (this.#takenAt[0] ?? nowMs) + HOUR_MS;
  }
}
