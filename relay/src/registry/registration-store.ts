import type { BudgetDecision } from '../store/relay-store.js';
import type { RegistrationRecord } from './registration-record.js';

/**
 * Where registrations live, so they survive restarts and every instance of a fleet sees them:
 * Redis, a Durable Object's storage, a file one Node instance writes atomically, or (when the
 * config says they may be lost) memory. Tokens arrive here already encrypted.
 *
 * Every method may reject (the store is unreachable): registering then fails with 503, and
 * serving goes on with the registrations this instance already has.
 */
export interface RegistrationStore {
  /** Changes whenever a registration is written or removed: instances reload everything only then. */
  version(): Promise<string>;
  /** Every registration, unchecked (read each with `readRegistrationRecord`), by website id. */
  all(): Promise<ReadonlyMap<string, unknown>>;
  /**
   * Registrations a page at a time, unchecked, by website id: from `cursor` ('' the first page) to
   * `next` ('' after the last). What is written or removed meanwhile may be in a page or not;
   * what stays is in one (or more: a reader keeps the last it saw).
   */
  page(cursor: string): Promise<RegistrationPage>;
  /** One registration, unchecked, or null. */
  get(websiteId: string): Promise<unknown>;
  /**
   * Compare-and-set: writes `record` only if the stored registration of its website is still
   * `expected` (null: none), as `storedSealed` tells records apart. False when another write came first:
   * nothing is written then. One step in the store, so two writers never both win.
   */
  put(record: RegistrationRecord, expected: RegistrationRecord | null): Promise<boolean>;
  /** Removes the registration only if it is still `expected` (by `storedSealed`); false when it was changed or removed meanwhile. */
  remove(expected: RegistrationRecord): Promise<boolean>;
  /**
   * Counts one event under `counter` in its rolling hour, if `limit` allows it; the whole fleet's,
   * with a shared store. Counters: `website:{id}` (a registered website's upstream requests), and
   * those of proofs of ownership (`attempt-limits.ts`). A name without `:` is relay-wide: a store
   * that bounds how many counters it keeps never evicts one of those.
   */
  takeHourly(counter: string, nowMs: number, limit: number): Promise<BudgetDecision>;
  /** Uncounts the latest event under `counter`: one `takeHourly` counted for something that then did not happen. */
  giveBackHourly(counter: string): Promise<void>;
  /**
   * True the first time `key` is seen, false while it is remembered: until `untilMs`, then it is
   * forgotten (the whole fleet's, with a shared store). A Shopify session token's `jti` is spent
   * so, and a write is never replayed with it.
   */
  rememberOnce(key: string, untilMs: number, nowMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface RegistrationPage {
  readonly records: ReadonlyMap<string, unknown>;
  readonly next: string;
}

/** Records a page holds, about: small enough that no read of one holds a store up. */
export const PAGE_SIZE = 100;

/**
 * What a compare-and-set compares: a record's ciphertext, fresh for every write (its IV is); '' for
 * none, or for anything stored that holds none (a write may replace that as it may an absent one).
 */
export function storedSealed(stored: unknown): string {
  if (typeof stored !== 'object' || stored === null) return '';
  const token = (stored as { token?: unknown }).token;
  const sealed = typeof token === 'object' && token !== null ? (token as { sealed?: unknown }).sealed : undefined;
  return typeof sealed === 'string' ? sealed : '';
}

/**
 * A record as a store that keeps text holds it, parsed; what is not JSON comes back as it is, for
 * `readRegistrationRecord` to refuse with the rest of what is not a registration.
 */
export function parseStoredRecord(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
