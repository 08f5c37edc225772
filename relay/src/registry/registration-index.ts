import { type RelayedWebsite, relayedWebsite } from '../config.js';
import { joinedSource } from './registered-source.js';
import { isSameRecord, type RegistrationRecord, readRegistrationRecord } from './registration-record.js';
import type { RegistrationStore } from './registration-store.js';
import { type TokenCipher, UnreadableToken } from './token-cipher.js';

/** One registered website as this instance serves it. */
export interface RegisteredWebsite {
  readonly record: RegistrationRecord;
  /** The website with its decrypted token; null when the record does not decrypt. */
  readonly website: RelayedWebsite | null;
  /** Why the record does not decrypt, for the owner and the log; null when it does. */
  readonly unreadable: string | null;
}

export interface RegistrationIndexParts {
  readonly store: RegistrationStore;
  readonly cipher: TokenCipher;
  /** Seconds between a website's upstream requests: a look at the store is due at least every half of it. */
  readonly intervalSeconds: number;
  /** A registered website (new, changed or gone) changed: its served state must follow. */
  readonly onChange: (websiteId: string, registered: RegisteredWebsite | undefined) => void;
  readonly now: () => number;
  readonly log: (line: string) => void;
}

/** How often an instance looks for registrations made or removed elsewhere in the fleet, at most. */
const MAX_SYNC_PERIOD_MS = 5_000;
/** A look at the store that lasts longer than this was dropped (the store's own calls are bounded far below it). */
const STALE_SYNC_MS = 10_000;

/**
 * This instance's copy of the registrations, decrypted, that the hot path reads without I/O
 * (through `onChange`), with the shop each is bound to. It follows the store: reloaded when the
 * store's version moves, looked at every few seconds (never less often than every half interval)
 * while requests come, so every instance of a fleet serves a new or removed registration within
 * one interval.
 */
export class RegistrationIndex {
  readonly #parts: RegistrationIndexParts;
  readonly #entries = new Map<string, RegisteredWebsite>();
  readonly #shops = new Map<string, string>();
  readonly #syncPeriodMs: number;
  #version: string | undefined;
  #syncDueAtMs = Number.NEGATIVE_INFINITY;
  #syncing: Promise<void> | undefined;
  #syncStartedAtMs = Number.NEGATIVE_INFINITY;
  #ready = false;
  /** Settles once the registrations were first read (or failed to be): until then a miss is not yet a 404. */
  readonly ready: Promise<void>;

  constructor(parts: RegistrationIndexParts) {
    this.#parts = parts;
    this.#syncPeriodMs = Math.min(MAX_SYNC_PERIOD_MS, (parts.intervalSeconds * 1000) / 2);
    this.ready = this.sync();
  }

  /** The registration this instance serves under `websiteId`, if any. */
  entry(websiteId: string): RegisteredWebsite | undefined {
    return this.#entries.get(websiteId);
  }

  /** The website bound to `shop`, as far as this instance has read. */
  websiteOfShop(shop: string): string | undefined {
    return this.#shops.get(shop);
  }

  /**
   * A look at the store is due (or none has finished yet): the request that finds it so waits for
   * it, so the look runs inside a request on every runtime (workerd cancels what a request leaves
   * behind), and one request per period pays one round trip to the store.
   */
  get isSyncDue(): boolean {
    return !this.#ready || this.#parts.now() >= this.#syncDueAtMs;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Reads the store's registrations when its version moved; one look at a time; never rejects. A
   * look that has not ended after `STALE_SYNC_MS` (its request's runtime dropped it) is given up.
   */
  sync(): Promise<void> {
    const nowMs = this.#parts.now();
    this.#syncDueAtMs = nowMs + this.#syncPeriodMs;
    if (this.#syncing && nowMs - this.#syncStartedAtMs < STALE_SYNC_MS) return this.#syncing;
    this.#syncStartedAtMs = nowMs;
    const look: Promise<void> = this.#reload()
      .catch((error: unknown) => this.#parts.log(`registrations: ${describe(error)}; serving the ones already read`))
      .finally(() => {
        this.#ready = true;
        if (this.#syncing === look) this.#syncing = undefined;
      });
    this.#syncing = look;
    return look;
  }

  /** `sync()` when a look is due; at once otherwise. */
  syncIfDue(): Promise<void> {
    return this.isSyncDue ? this.sync() : Promise.resolve();
  }

  async #reload(): Promise<void> {
    const { store } = this.#parts;
    const version = await store.version();
    if (version === this.#version) return;
    const all = await store.all();
    const seen = new Set<string>();
    for (const [websiteId, raw] of all) {
      const record = readRegistrationRecord(raw, websiteId);
      if (!record) {
        this.#parts.log(`registrations: the store holds something under "${websiteId}" that is not a registration; not served`);
        continue;
      }
      seen.add(websiteId);
      const known = this.#entries.get(websiteId);
      if (known && isSameRecord(known.record, record)) continue;
      await this.adopt(record);
    }
    for (const websiteId of [...this.#entries.keys()]) if (!seen.has(websiteId)) this.forget(websiteId);
    this.#version = version;
  }

  /** Decrypts a record and serves it from now on; one that does not decrypt is served as a 502 with a log line. */
  async adopt(record: RegistrationRecord): Promise<RegisteredWebsite> {
    let entry: RegisteredWebsite;
    try {
      const secret = await this.#parts.cipher.open(record);
      entry = { record, website: this.#websiteOf(record, secret), unreadable: null };
    } catch (error) {
      const why = error instanceof UnreadableToken ? error.message : 'it does not decrypt';
      this.#parts.log(
        `registrations: the token of "${record.websiteId}" cannot be read (${why}); that website answers 502 until its owner registers it again`,
      );
      entry = { record, website: null, unreadable: why };
    }
    const previous = this.#entries.get(record.websiteId);
    if (previous?.record.shop && previous.record.shop !== record.shop) this.#shops.delete(previous.record.shop);
    this.#entries.set(record.websiteId, entry);
    // A shop named only by a record that does not decrypt is no one's: it may have been written there.
    if (record.shop && entry.website) this.#shops.set(record.shop, record.websiteId);
    this.#parts.onChange(record.websiteId, entry);
    return entry;
  }

  /** The website a record and its opened secret make; `UnreadableToken` when a source's secrets no longer make a source. */
  #websiteOf(record: RegistrationRecord, secret: string): RelayedWebsite {
    if (record.source === null) return relayedWebsite(record.websiteId, secret);
    const source = joinedSource(record.source, secret);
    if (source === null) throw new UnreadableToken(`its ${record.source.kind} source no longer reads as one`);
    return relayedWebsite(record.websiteId, '', undefined, source);
  }

  forget(websiteId: string): void {
    const entry = this.#entries.get(websiteId);
    if (!entry) return;
    this.#entries.delete(websiteId);
    if (entry.record.shop && this.#shops.get(entry.record.shop) === websiteId) this.#shops.delete(entry.record.shop);
    this.#parts.onChange(websiteId, undefined);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
