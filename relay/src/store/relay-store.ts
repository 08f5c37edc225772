import type { RealtimeErrorKind } from '../../../src/contract/errors.js';

/**
 * What a relay fleet must hold once, not once per instance: each website's last good answer and
 * back-off, the claim to ask upstream for it, and the hourly budget. One process uses the memory
 * store; a fleet shares Redis or a Durable Object. No token is ever written to a store.
 *
 * Every method may reject (the store is unreachable, or answered garbage): the relay then keeps
 * serving what it has, and asks upstream on its own only within `storeDownBudget`.
 */
export interface RelayStore {
  /**
   * The website's shared state as the store holds it, unchecked (decoded from JSON where the store
   * keeps text), or null when there is none. Only `readWebsiteState` interprets it: anything may
   * have written the key.
   */
  read(websiteId: string): Promise<unknown>;
  /** Replaces the website's state; kept for `keepMs`, then forgotten. Written only by a claim's holder. */
  write(websiteId: string, state: SharedWebsiteState, keepMs: number): Promise<void>;
  /**
   * Claims the right to ask upstream for the website, for `ttlMs` at most (a holder that dies
   * cannot stall the fleet past it); true when this holder got it.
   */
  claim(websiteId: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the claim back, only if `holder` still holds it. */
  release(websiteId: string, holder: string): Promise<void>;
  /** Counts one upstream request at `nowMs` in the fleet's rolling hour, if `limit` allows it. Read through `readBudgetDecision`. */
  takeBudget(nowMs: number, limit: number): Promise<BudgetDecision>;
  /**
   * One round trip that reads and writes nothing, for `GET /readyz`; a store without it (memory,
   * a Durable Object) is read under an id no website has instead.
   */
  ping?(): Promise<void>;
  /** Lets go of connections; the store is not used after. */
  close(): Promise<void>;
}

/** One website's state, as every instance of the fleet sees it. */
export interface SharedWebsiteState {
  /** The last good answer, if any: the contract's three fields, serialised once. */
  readonly answer: SharedAnswer | null;
  /** Failed upstream requests in a row since the last good answer. */
  readonly failures: number;
  /** No instance asks upstream before this time (an interval after an answer, the back-off, or a spent budget). */
  readonly nextAttemptAtMs: number;
  /** The latest failure since the last good answer, already free of tokens. */
  readonly failure: StoredFailure | null;
}

export interface SharedAnswer {
  readonly body: string;
  readonly etag: string;
  /** When the upstream answer arrived, by the fetching instance's clock (ms since the epoch). */
  readonly fetchedAtMs: number;
}

export interface StoredFailure {
  readonly kind: RealtimeErrorKind;
  readonly status: number | null;
  /** Ends "the analytics service …"; holds no token. */
  readonly reason: string;
}

export interface BudgetDecision {
  readonly taken: boolean;
  /** When the next request fits: now when there is room, else when the oldest counted one leaves the hour. */
  readonly nextRoomAtMs: number;
}
