import { RollingHourLimit } from '../../../server-kit/rolling-hour.js';
import type { BudgetDecision, RelayStore, SharedWebsiteState } from './relay-store.js';

/**
 * The default store: this process's memory. Right for one instance, nothing to set up; a fleet
 * needs a shared store. Also the state a Durable Object keeps for its fleet.
 */
export class MemoryStore implements RelayStore {
  readonly #states = new Map<string, { state: SharedWebsiteState; expiresAtMs: number }>();
  readonly #claims = new Map<string, { holder: string; expiresAtMs: number }>();
  readonly #now: () => number;
  #budget: RollingHourLimit | undefined;

  /** `now` tells when kept states and claims expire; the relay's own clock. */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async read(websiteId: string): Promise<SharedWebsiteState | null> {
    const kept = this.#states.get(websiteId);
    if (!kept || kept.expiresAtMs <= this.#now()) return null;
    return kept.state;
  }

  async write(websiteId: string, state: SharedWebsiteState, keepMs: number): Promise<void> {
    this.#states.set(websiteId, { state, expiresAtMs: this.#now() + keepMs });
  }

  async claim(websiteId: string, holder: string, ttlMs: number): Promise<boolean> {
    const nowMs = this.#now();
    const current = this.#claims.get(websiteId);
    if (current && current.expiresAtMs > nowMs) return false;
    this.#claims.set(websiteId, { holder, expiresAtMs: nowMs + ttlMs });
    return true;
  }

  async release(websiteId: string, holder: string): Promise<void> {
    if (this.#claims.get(websiteId)?.holder === holder) this.#claims.delete(websiteId);
  }

  async takeBudget(nowMs: number, limit: number): Promise<BudgetDecision> {
    if (this.#budget?.limit !== limit) this.#budget = new RollingHourLimit(limit);
    const taken = this.#budget.tryTake(nowMs);
    return { taken, nextRoomAtMs: this.#budget.nextRoomAt(nowMs) };
  }

  async close(): Promise<void> {}
}
