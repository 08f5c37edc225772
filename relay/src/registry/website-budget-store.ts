import type { BudgetDecision, RelayStore, SharedWebsiteState } from '../store/relay-store.js';
import type { RegistrationStore } from './registration-store.js';

/**
 * The fleet's store as one registered website's cache sees it: every upstream request is counted
 * in the website's own hourly budget first (its owner's plan), then in the relay's (which still
 * caps every website together). A request the website's budget refuses costs the relay nothing.
 */
export class WebsiteBudgetStore implements RelayStore {
  readonly #shared: RelayStore;
  readonly #registrations: RegistrationStore;
  readonly #websiteId: string;
  readonly #limit: number;

  constructor(shared: RelayStore, registrations: RegistrationStore, websiteId: string, limit: number) {
    this.#shared = shared;
    this.#registrations = registrations;
    this.#websiteId = websiteId;
    this.#limit = limit;
  }

  read(websiteId: string): Promise<unknown> {
    return this.#shared.read(websiteId);
  }

  write(websiteId: string, state: SharedWebsiteState, keepMs: number): Promise<void> {
    return this.#shared.write(websiteId, state, keepMs);
  }

  claim(websiteId: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.#shared.claim(websiteId, holder, ttlMs);
  }

  release(websiteId: string, holder: string): Promise<void> {
    return this.#shared.release(websiteId, holder);
  }

  async takeBudget(nowMs: number, limit: number): Promise<BudgetDecision> {
    const own = await this.#registrations.takeHourly(`website:${this.#websiteId}`, nowMs, this.#limit);
    return own.taken ? this.#shared.takeBudget(nowMs, limit) : own;
  }

  /** The shared store belongs to the relay, which closes it. */
  async close(): Promise<void> {}
}
