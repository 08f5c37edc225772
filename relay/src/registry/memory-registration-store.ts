import { RollingHourLimit } from '../../../server-kit/rolling-hour.js';
import type { BudgetDecision } from '../store/relay-store.js';
import type { RegistrationRecord } from './registration-record.js';
import { PAGE_SIZE, type RegistrationPage, type RegistrationStore, storedSealed } from './registration-store.js';

/** Hourly counters kept at most: every registered website's and the recent requesters'. */
const MAX_COUNTERS = 1_100_000;

/**
 * Registrations in this process's memory: lost on a restart, so a relay uses it only when its
 * config says `registrationsMayBeLost` (the demo), and tests. The file store builds on it.
 */
export class MemoryRegistrationStore implements RegistrationStore {
  protected readonly records = new Map<string, RegistrationRecord>();
  readonly #budgets = new Map<string, RollingHourLimit>();
  /** Keys remembered once, and until when: forgotten past it, the oldest first beyond MAX_COUNTERS. */
  readonly #remembered = new Map<string, number>();
  #version = 0;

  async version(): Promise<string> {
    return String(this.#version);
  }

  async all(): Promise<ReadonlyMap<string, unknown>> {
    return new Map(this.records);
  }

  /** In website id order, the cursor being the last id of the page before. */
  async page(cursor: string): Promise<RegistrationPage> {
    const ids = [...this.records.keys()].filter((id) => id > cursor).sort();
    const records = new Map(ids.slice(0, PAGE_SIZE).map((id) => [id, this.records.get(id)]));
    return { records, next: ids.length > PAGE_SIZE ? ids[PAGE_SIZE - 1]! : '' };
  }

  async get(websiteId: string): Promise<unknown> {
    return this.records.get(websiteId) ?? null;
  }

  async put(record: RegistrationRecord, expected: RegistrationRecord | null): Promise<boolean> {
    if (!this.holds(record.websiteId, expected)) return false;
    this.records.set(record.websiteId, record);
    this.#version += 1;
    return true;
  }

  async remove(expected: RegistrationRecord): Promise<boolean> {
    const { websiteId } = expected;
    if (!this.records.has(websiteId) || !this.holds(websiteId, expected)) return false;
    this.records.delete(websiteId);
    this.forgetBudget(websiteId);
    this.#version += 1;
    return true;
  }

  /** A removed website's hourly budget goes with it. */
  protected forgetBudget(websiteId: string): void {
    this.#budgets.delete(`website:${websiteId}`);
  }

  /** The compare of a compare-and-set: the stored registration of `websiteId` is still `expected`. */
  protected holds(websiteId: string, expected: RegistrationRecord | null): boolean {
    return storedSealed(this.records.get(websiteId)) === storedSealed(expected);
  }

  async takeHourly(counter: string, nowMs: number, limit: number): Promise<BudgetDecision> {
    let budget = this.#budgets.get(counter);
    if (budget?.limit !== limit) {
      // Bounded: the oldest scoped counter goes first (a requester forgotten can only be let through
      // again once); a relay-wide one (no `:`) never goes, or a flood of addresses would reopen it.
      if (this.#budgets.size >= MAX_COUNTERS) this.#budgets.delete(oldestScoped(this.#budgets.keys()));
      budget = new RollingHourLimit(limit);
      this.#budgets.set(counter, budget);
    }
    const taken = budget.tryTake(nowMs);
    return { taken, nextRoomAtMs: budget.nextRoomAt(nowMs) };
  }

  async giveBackHourly(counter: string): Promise<void> {
    this.#budgets.get(counter)?.giveBack();
  }

  async rememberOnce(key: string, untilMs: number, nowMs: number): Promise<boolean> {
    for (const [remembered, until] of this.#remembered) if (until <= nowMs) this.#remembered.delete(remembered);
    if (this.#remembered.has(key)) return false;
    if (this.#remembered.size >= MAX_COUNTERS) this.#remembered.delete(this.#remembered.keys().next().value as string);
    this.#remembered.set(key, untilMs);
    return true;
  }

  async close(): Promise<void> {}
}

/** The first counter name with a scope (`attempts:…`, `website:…`); the relay-wide ones are a handful, so few are passed over. */
function oldestScoped(names: Iterable<string>): string {
  for (const name of names) if (name.includes(':')) return name;
  return '';
}
