import type { BudgetDecision } from '../store/relay-store.js';
import { refusal, storeDown } from './registration-checks.js';
import type { RegistrationStore } from './registration-store.js';
import type { Refusal } from './registrations.js';

/** One client, or one website ID, gets this share of `registrationsPerHour` failed proofs (at least one). */
const SHARE = 10;
/** Checks with the services an hour, relay-wide, per failed proof `registrationsPerHour` allows: owners' good proofs fit beside a flood's. */
const CHECKS_PER_FAILURE = 10;
/** Requester names are someone else's text (an address, a forwarded header): bounded in the store's keys. */
const MAX_REQUESTER_LENGTH = 100;

// Counter names: without a `:` a counter is relay-wide, and a store that bounds its counters never evicts one.
const RELAY_FAILURES = 'failures';
const RELAY_CHECKS = 'checks';

/** One proof of ownership being judged: its failure slots are reserved until it is settled. */
export interface ProofAttempt {
  /** Before a request to a service: one from the relay's allowance of checks, or the refusal when it is spent. */
  check(): Promise<Refusal | null>;
  /** The proof did not hold (401, or 404 from the service): it stays counted against the client, the website ID and the relay. */
  failed(): Promise<void>;
  /** The proof held, or was never judged (the service or the store failed): nothing stays counted. */
  release(): Promise<void>;
}

/**
 * Limits on every proof of ownership (registering, replacing, removing, the Shopify app's saves),
 * counted in the registration store over a rolling hour, so a fleet counts them once. Failures are
 * counted, not attempts: per client, per website ID and relay-wide. A client at its share is
 * refused. A website ID at its share, or the relay at `registrationsPerHour`, is under attack:
 * then only clients without a failed proof this hour are judged, so an owner with a good proof
 * from an address of its own gets through while every address of the flood waits. Requests to the
 * services for checks have their own relay-wide allowance, apart from the websites' serving budget.
 */
export class AttemptLimits {
  readonly #store: RegistrationStore;
  readonly #perHour: number;
  readonly #share: number;
  readonly #now: () => number;
  readonly #log: (line: string) => void;

  constructor(store: RegistrationStore, perHour: number, now: () => number, log: (line: string) => void) {
    this.#store = store;
    this.#perHour = perHour;
    this.#share = Math.max(1, Math.floor(perHour / SHARE));
    this.#now = now;
    this.#log = log;
  }

  /** Reserves a failure slot for a proof from `requester` for `websiteId`; a refusal (429, or 503 when the store cannot count) instead. */
  async admit(requester: string, websiteId: string): Promise<ProofAttempt | Refusal> {
    const client = requester.slice(0, MAX_REQUESTER_LENGTH);
    const reserved = new Reservations(this.#store);
    try {
      const nowMs = this.#now();
      const own = await reserved.take(`failures:client:${client}`, nowMs, this.#share);
      if (!own.taken) {
        const text = `Too many failed proofs of ownership from this address (${this.#share} an hour); ${tryAgain(own, nowMs)}`;
        return refusal(429, text, wait(own, nowMs));
      }
      const website = await reserved.take(`failures:website:${websiteId}`, nowMs, this.#share);
      const relay = await reserved.take(RELAY_FAILURES, nowMs, this.#perHour);
      const clean = { taken: false, nextRoomAtMs: nowMs };
      if (!website.taken || !relay.taken) {
        // Under attack: only a client without a failed proof this hour is judged; its mark says it has one.
        Object.assign(clean, await reserved.take(`failed:client:${client}`, nowMs, 1));
        if (!clean.taken) {
          await reserved.giveBack();
          const under = relay.taken ? website : relay;
          const first = wait(clean, nowMs) < wait(under, nowMs) ? clean : under;
          const what = relay.taken ? 'this website ID' : 'this relay';
          const text = `Too many failed proofs of ownership for ${what} this hour, and one came from this address: only addresses without a failed proof are checked until they age out; ${tryAgain(first, nowMs)}`;
          return refusal(429, text, wait(first, nowMs));
        }
      }
      return this.#attempt(reserved, client, websiteId, clean.taken);
    } catch {
      await reserved.giveBack();
      return storeDown();
    }
  }

  #attempt(reserved: Reservations, client: string, websiteId: string, marked: boolean): ProofAttempt {
    let settled = false;
    const settle = async (failed: boolean) => {
      if (settled) return;
      settled = true;
      if (!failed) return reserved.giveBack();
      // The mark that ends this client's turns while the relay or a website is under attack.
      if (!marked) await this.#store.takeHourly(`failed:client:${client}`, this.#now(), 1).catch(() => undefined);
      this.#logFilled(reserved, client, websiteId);
    };
    return {
      check: async () => {
        const nowMs = this.#now();
        try {
          const checks = await this.#store.takeHourly(RELAY_CHECKS, nowMs, this.#perHour * CHECKS_PER_FAILURE);
          if (checks.taken) return null;
          const text = `This relay made its ${this.#perHour * CHECKS_PER_FAILURE} checks with the analytics services this hour; nothing was asked, ${tryAgain(checks, nowMs)}`;
          return refusal(429, text, wait(checks, nowMs));
        } catch {
          return storeDown();
        }
      },
      failed: () => settle(true),
      release: () => settle(false),
    };
  }

  /** One line when this failure filled a limit: the operator sees a flood begin, once per limit and hour. */
  #logFilled(reserved: Reservations, client: string, websiteId: string): void {
    const checkedOnlyClean = 'only addresses without a failed proof are checked';
    if (reserved.filled(`failures:client:${client}`)) {
      this.#log(
        `registrations: ${this.#share} failed proofs of ownership from ${JSON.stringify(client)} this hour; it is refused until they age out`,
      );
    }
    if (reserved.filled(`failures:website:${websiteId}`)) {
      this.#log(
        `registrations: ${this.#share} failed proofs of ownership for ${JSON.stringify(websiteId)} this hour; ${checkedOnlyClean} for it`,
      );
    }
    if (reserved.filled(RELAY_FAILURES)) {
      this.#log(
        `registrations: ${this.#perHour} failed proofs of ownership on this relay this hour (registrationsPerHour); ${checkedOnlyClean}`,
      );
    }
  }
}

/** The counters one proof took, to give back when it held. */
class Reservations {
  readonly #store: RegistrationStore;
  readonly #taken = new Set<string>();
  /** The counters this proof's slot filled: at their limit from then on. */
  readonly #filled = new Set<string>();

  constructor(store: RegistrationStore) {
    this.#store = store;
  }

  async take(counter: string, nowMs: number, limit: number): Promise<BudgetDecision> {
    const decision = await this.#store.takeHourly(counter, nowMs, limit);
    if (decision.taken) this.#taken.add(counter);
    if (decision.taken && decision.nextRoomAtMs > nowMs) this.#filled.add(counter);
    return decision;
  }

  /** Whether taking `counter` filled it. */
  filled(counter: string): boolean {
    return this.#filled.has(counter);
  }

  async giveBack(): Promise<void> {
    const counters = [...this.#taken];
    this.#taken.clear();
    this.#filled.clear();
    await Promise.all(counters.map((counter) => this.#store.giveBackHourly(counter).catch(() => undefined)));
  }
}

function wait(decision: BudgetDecision, nowMs: number): number {
  return decision.nextRoomAtMs - nowMs;
}

/** When to try again, in the words of the `Retry-After` it comes with. */
function tryAgain(decision: BudgetDecision, nowMs: number): string {
  const minutes = Math.max(1, Math.ceil(wait(decision, nowMs) / 60_000));
  return `try again in ${minutes} minute${minutes === 1 ? '' : 's'}`;
}
