import { refusal, storeDown } from './registration-checks.js';
import type { RegistrationStore } from './registration-store.js';
import type { Refusal } from './registrations.js';

/** One requester gets this share of `registrationsPerHour` (at least one attempt). */
const REQUESTER_SHARE = 10;
/** Requester names are someone else's text (an address, a forwarded header): bounded in the store's keys. */
const MAX_REQUESTER_LENGTH = 100;

/**
 * Registration attempts per requester and in all, each over a rolling hour, counted in the
 * registration store: with a shared store the whole fleet counts them once.
 */
export class AttemptLimits {
  readonly #store: RegistrationStore;
  readonly #perHour: number;
  readonly #perRequester: number;
  readonly #now: () => number;

  constructor(store: RegistrationStore, perHour: number, now: () => number) {
    this.#store = store;
    this.#perHour = perHour;
    this.#perRequester = Math.max(1, Math.floor(perHour / REQUESTER_SHARE));
    this.#now = now;
  }

  /** Counts one attempt; a refusal (429, or 503 when the store cannot count) when over a limit. */
  async take(requester: string): Promise<Refusal | null> {
    const nowMs = this.#now();
    try {
      const own = await this.#store.takeHourly(`attempts:${requester.slice(0, MAX_REQUESTER_LENGTH)}`, nowMs, this.#perRequester);
      if (!own.taken) return refusal(429, 'Too many registration attempts from this address; try again later', own.nextRoomAtMs - nowMs);
      const all = await this.#store.takeHourly('attempts', nowMs, this.#perHour);
      if (!all.taken) return refusal(429, 'Too many registration attempts on this relay; try again later', all.nextRoomAtMs - nowMs);
      return null;
    } catch {
      return storeDown();
    }
  }
}
