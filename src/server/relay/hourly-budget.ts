export const HOUR_MS = 60 * 60_000;

/**
 * Counts the relay's own upstream requests over a rolling hour and refuses one that would
 * go past the budget, so the relay can never be what exhausts the plan. Holds at most
 * `limit` timestamps.
 */
export class HourlyBudget {
  readonly limit: number;
  readonly #sentAt: number[] = [];

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Counts one request at `nowMs` if the budget allows it; false (and nothing counted) otherwise. */
  tryTake(nowMs: number): boolean {
    this.#forgetOlderThanAnHour(nowMs);
    if (this.#sentAt.length >= this.limit) return false;
    this.#sentAt.push(nowMs);
    return true;
  }

  hasRoom(nowMs: number): boolean {
    this.#forgetOlderThanAnHour(nowMs);
    return this.#sentAt.length < this.limit;
  }

  /** Requests counted in the hour up to `nowMs`. */
  used(nowMs: number): number {
    this.#forgetOlderThanAnHour(nowMs);
    return this.#sentAt.length;
  }

  /** When the next request fits: `nowMs` when there is room, else when the oldest one leaves the hour. */
  nextRoomAt(nowMs: number): number {
    this.#forgetOlderThanAnHour(nowMs);
    if (this.#sentAt.length < this.limit) return nowMs;
    return this.#sentAt[this.#sentAt.length - this.limit]! + HOUR_MS;
  }

  // The window is (now - 1 h, now]: a request exactly an hour old no longer counts.
  #forgetOlderThanAnHour(nowMs: number): void {
    let expired = 0;
    while (expired < this.#sentAt.length && this.#sentAt[expired]! <= nowMs - HOUR_MS) expired += 1;
    if (expired > 0) this.#sentAt.splice(0, expired);
  }
}
