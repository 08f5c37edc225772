import type { BudgetDecision, RelayStore, SharedWebsiteState } from '../store/relay-store.js';
import type { RegistrationStore } from './registration-store.js';

/**
 * The fleet's store as one registered website's cache sees it: every upstream request is counted
 * in the website's own hourly budget first (its owner's plan), then in the relay's (which still
 * caps every website together). A request the website's budget refuses costs the relay nothing;
 * one the relay's refuses is given back to the website's, since it was not sent.
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
    const counter = `website:${this.#websiteId}`;
    const own = await this.#registrations.takeHourly(counter, nowMs, this.#limit);
    if (!own.taken) return own;
    // A failing store is not given back: the relay may still ask alone (storeDownBudget).
    const relay = await this.#shared.takeBudget(nowMs, limit);
    if (!relay.taken) await this.#giveBack(counter);
    return relay;
  }

  /** Best effort: a store that fails now leaves one count spent, as before, rather than hide the refusal. */
  async #giveBack(counter: string): Promise<void> {
    try {
      await this.#registrations.giveBackHourly(counter);
    } catch {}
  }

  /** The shared store belongs to the relay, which closes it. */
  async close(): Promise<void> {}
}
