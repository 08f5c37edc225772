import { RollingHourLimit } from '../../../server-kit/rolling-hour.js';
import type { BudgetDecision } from '../store/relay-store.js';
import type { RegistrationRecord } from './registration-record.js';
import type { RegistrationStore } from './registration-store.js';

/**
 * Registrations in this process's memory: lost on a restart, so a relay uses it only when its
 * config says `registrationsMayBeLost` (the demo), and tests. The file store builds on it.
 */
export class MemoryRegistrationStore implements RegistrationStore {
  protected readonly records = new Map<string, RegistrationRecord>();
  readonly #budgets = new Map<string, RollingHourLimit>();
  #version = 0;

  async version(): Promise<string> {
    return String(this.#version);
  }

  async all(): Promise<ReadonlyMap<string, unknown>> {
    return new Map(this.records);
  }

  async get(websiteId: string): Promise<unknown> {
    return this.records.get(websiteId) ?? null;
  }

  async put(record: RegistrationRecord): Promise<void> {
    this.records.set(record.websiteId, record);
    this.#version += 1;
  }

  async remove(websiteId: string): Promise<boolean> {
    const had = this.records.delete(websiteId);
    this.#budgets.delete(websiteId);
    if (had) this.#version += 1;
    return had;
  }

  async takeWebsiteBudget(websiteId: string, nowMs: number, limit: number): Promise<BudgetDecision> {
    let budget = this.#budgets.get(websiteId);
    if (budget?.limit !== limit) {
      budget = new RollingHourLimit(limit);
      this.#budgets.set(websiteId, budget);
    }
    const taken = budget.tryTake(nowMs);
    return { taken, nextRoomAtMs: budget.nextRoomAt(nowMs) };
  }

  async close(): Promise<void> {}
}
