import type { RealtimeReport } from '../../../src/contract/report.js';
import { type RelayConfig, type RelayedWebsite, relayedWebsite } from '../config.js';
import type { SourceSettings } from '../sources/source.js';
import { AttemptLimits } from './attempt-limits.js';
import { holdsStoredToken, isSameOwnership, proofToCheck, storedSource } from './ownership-proof.js';
import { describeSite, joinedSource, publicPart, secretEnding, secretPart } from './registered-source.js';
import { checkRequest, configured, isToken, isWebsiteId, refusal, storeDown, TOKEN_SHAPE, WRONG_TOKEN } from './registration-checks.js';
import { DEFAULT_WEBSITE_HOURLY_BUDGET, type RegistrationRecord, readRegistrationRecord, viewOf } from './registration-record.js';
import type { RegistrationStore } from './registration-store.js';
import type { BindOutcome, RegisterOutcome, RegistrationRequest, Registrations, RegistrationView, RemoveOutcome } from './registrations.js';
import { checkWithService, type ServiceCheckParts } from './service-check.js';
import { type TokenCipher, UnreadableToken } from './token-cipher.js';

/** One registered website as this instance serves it. */
export interface RegisteredWebsite {
  readonly record: RegistrationRecord;
  /** The website with its decrypted token; null when the record does not decrypt. */
  readonly website: RelayedWebsite | null;
  /** Why the record does not decrypt, for the owner and the log; null when it does. */
  readonly unreadable: string | null;
}

export interface RegistryParts extends ServiceCheckParts {
  readonly config: Pick<RelayConfig, 'websites' | 'interval' | 'registrationsPerHour' | 'maxWebsites' | 'encryptionKeys' | 'selfServe'>;
  readonly store: RegistrationStore;
  readonly cipher: TokenCipher;
  /** Keeps the report the check fetched as the website's first answer, so its first shopper costs no second request. */
  readonly keepFirstAnswer: (websiteId: string, report: RealtimeReport) => Promise<void>;
  /** A registered website (new, changed or gone) changed: its served state must follow. */
  readonly onChange: (websiteId: string, registered: RegisteredWebsite | undefined) => void;
  readonly log: (line: string) => void;
}

/** How often an instance looks for registrations made or removed elsewhere in the fleet, at most. */
const MAX_SYNC_PERIOD_MS = 5_000;
/** A look at the store that lasts longer than this was dropped (the store's own calls are bounded far below it). */
const STALE_SYNC_MS = 10_000;

/**
 * The relay's registered websites: `Registrations` for owners and the Shopify app, and the index
 * the hot path reads without I/O (through `onChange`). The index follows the store: it is reloaded when the
 * store's version moves, looked at every few seconds (never less often than every half interval)
 * while requests come, so every instance of a fleet serves a new or removed registration within
 * one interval.
 */
export class WebsiteRegistry implements Registrations {
  readonly #parts: RegistryParts;
  readonly #staticIds: ReadonlySet<string>;
  readonly #entries = new Map<string, RegisteredWebsite>();
  readonly #shops = new Map<string, string>();
  readonly #attempts: AttemptLimits;
  readonly #syncPeriodMs: number;
  #version: string | undefined;
  #syncDueAtMs = Number.NEGATIVE_INFINITY;
  #syncing: Promise<void> | undefined;
  #syncStartedAtMs = Number.NEGATIVE_INFINITY;
  #ready = false;
  /** Settles once the registrations were first read (or failed to be): until then a miss is not yet a 404. */
  readonly ready: Promise<void>;

  constructor(parts: RegistryParts) {
    this.#parts = parts;
    this.#staticIds = new Set(parts.config.websites.map((website) => website.id));
    this.#attempts = new AttemptLimits(parts.store, parts.config.registrationsPerHour, parts.now);
    this.#syncPeriodMs = Math.min(MAX_SYNC_PERIOD_MS, (parts.config.interval * 1000) / 2);
    this.ready = this.sync();
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
      if (known && sameRecord(known.record, record)) continue;
      await this.#adopt(record);
    }
    for (const websiteId of [...this.#entries.keys()]) if (!seen.has(websiteId)) this.#forget(websiteId);
    this.#version = version;
  }

  /** Decrypts a record and serves it from now on; one that does not decrypt is served as a 502 with a log line. */
  async #adopt(record: RegistrationRecord): Promise<RegisteredWebsite> {
    let entry: RegisteredWebsite;
    try {
      const secret = await this.#parts.cipher.open(record.websiteId, record.token);
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
    if (record.shop) this.#shops.set(record.shop, record.websiteId);
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

  #forget(websiteId: string): void {
    const entry = this.#entries.get(websiteId);
    if (!entry) return;
    this.#entries.delete(websiteId);
    if (entry.record.shop && this.#shops.get(entry.record.shop) === websiteId) this.#shops.delete(entry.record.shop);
    this.#parts.onChange(websiteId, undefined);
  }

  async register(request: RegistrationRequest): Promise<RegisterOutcome> {
    const malformed = checkRequest(request);
    if (malformed) return malformed;
    const { websiteId, token } = request;
    if (this.#staticIds.has(websiteId)) return configured(websiteId);
    const limited = await this.#attempts.take(request.requester);
    if (limited) return limited;
    const existing = await this.#storedRecord(websiteId);
    if (existing === 'down') return storeDown();
    // As far as this instance knows: a fleet's instances registering at once may pass the cap by a few.
    if (!existing && this.#entries.size >= this.#parts.config.maxWebsites) {
      return refusal(
        429,
        `This relay holds its maximum of ${this.#parts.config.maxWebsites} websites; ask its operator to raise maxWebsites`,
      );
    }
    if (existing && !isSameOwnership(existing, request.source)) {
      return refusal(
        409,
        `"${websiteId}" is registered for ${existing.source ? describeSite(existing.source) : "the realtime API's website"}: remove it first (DELETE with its key), then register it again`,
      );
    }
    const checked = await checkWithService(this.#parts, websiteId, token, request.source);
    if (checked.outcome === 'refused') return checked;
    const record = await this.#sealed(websiteId, token, request.source, {
      allowOrigins: request.allowOrigins ?? null,
      hourlyBudget: request.hourlyBudget ?? DEFAULT_WEBSITE_HOURLY_BUDGET,
      shop: existing ? existing.shop : null,
    });
    try {
      await this.#parts.store.put(record);
    } catch (error) {
      this.#parts.log(`registrations: could not store "${websiteId}": ${describe(error)}`);
      return storeDown();
    }
    await this.#adopt(record);
    await this.#parts.keepFirstAnswer(websiteId, checked.report).catch(() => {});
    return { outcome: existing ? 'replaced' : 'created', registration: viewOf(record) };
  }

  async remove(websiteId: string, token: string, requester: string, source?: SourceSettings): Promise<RemoveOutcome> {
    if (this.#staticIds.has(websiteId)) return configured(websiteId);
    if (!isWebsiteId(websiteId) || (source === undefined && !isToken(token))) return refusal(400, TOKEN_SHAPE);
    const existing = await this.#storedRecord(websiteId);
    if (existing === 'down') return storeDown();
    if (!existing) return refusal(404, `No website "${websiteId}" is registered on this relay`);
    const stored = await storedSource(this.#parts.cipher, existing);
    if (!(await holdsStoredToken(this.#parts.cipher, existing, token, stored, source))) {
      // An owner who rotated the token proves ownership with the new one, which the service accepts now.
      const proof = proofToCheck(existing, token, stored, source);
      if (proof === null) return refusal(401, WRONG_TOKEN);
      const limited = await this.#attempts.take(requester);
      if (limited) return limited;
      const checked = await checkWithService(this.#parts, websiteId, token, proof.source);
      if (checked.outcome === 'refused') return checked.status === 404 || checked.status === 401 ? refusal(401, WRONG_TOKEN) : checked;
    }
    return this.#removeRecord(websiteId);
  }

  async read(websiteId: string): Promise<RegistrationView | null> {
    const existing = await this.#storedRecord(websiteId);
    if (existing === 'down') throw new Error('the registrations store is unreachable');
    return existing ? viewOf(existing) : null;
  }

  async bindShop(shop: string, websiteId: string): Promise<BindOutcome> {
    if (this.#staticIds.has(websiteId)) return configured(websiteId);
    const existing = await this.#storedRecord(websiteId);
    if (existing === 'down') return storeDown();
    if (!existing) return refusal(404, `No website "${websiteId}" is registered on this relay: register it first`);
    await this.sync();
    const before = this.#shops.get(shop);
    if (before !== undefined && before !== websiteId) {
      const removed = await this.#removeRecord(before);
      if (removed.outcome === 'refused') return removed;
    }
    let record: RegistrationRecord = { ...existing, shop, savedAtMs: Date.now() };
    // A write re-encrypts under the newest key, as every write does.
    const entry = this.#entries.get(websiteId);
    if (entry?.website && existing.token.keyId !== this.#parts.cipher.currentKeyId) {
      const { token, source } = entry.website;
      record = { ...record, token: await this.#parts.cipher.seal(websiteId, source ? secretPart(source) : token) };
    }
    try {
      await this.#parts.store.put(record);
    } catch (error) {
      this.#parts.log(`registrations: could not bind "${websiteId}" to ${shop}: ${describe(error)}`);
      return storeDown();
    }
    await this.#adopt(record);
    return { outcome: 'bound', registration: viewOf(record) };
  }

  async websiteOfShop(shop: string): Promise<string | null> {
    await this.syncIfDue();
    return this.#shops.get(shop) ?? null;
  }

  async removeShop(shop: string): Promise<void> {
    await this.sync();
    const websiteId = this.#shops.get(shop);
    if (websiteId === undefined) return;
    const removed = await this.#removeRecord(websiteId);
    if (removed.outcome === 'refused') throw new Error(removed.message);
  }

  async #removeRecord(websiteId: string): Promise<RemoveOutcome> {
    try {
      await this.#parts.store.remove(websiteId);
    } catch (error) {
      this.#parts.log(`registrations: could not remove "${websiteId}": ${describe(error)}`);
      return storeDown();
    }
    this.#forget(websiteId);
    return { outcome: 'removed' };
  }

  /** The stored record, checked; null when there is none; 'down' when the store failed. */
  async #storedRecord(websiteId: string): Promise<RegistrationRecord | null | 'down'> {
    try {
      return readRegistrationRecord(await this.#parts.store.get(websiteId), websiteId);
    } catch (error) {
      this.#parts.log(`registrations: could not read "${websiteId}": ${describe(error)}`);
      return 'down';
    }
  }

  async #sealed(
    websiteId: string,
    token: string,
    source: SourceSettings | undefined,
    fields: Pick<RegistrationRecord, 'allowOrigins' | 'hourlyBudget' | 'shop'>,
  ): Promise<RegistrationRecord> {
    // A source's secrets are sealed as one text, under the same key and with the same website id as a token.
    return {
      websiteId,
      ...fields,
      tokenEnding: source ? secretEnding(source) : token.slice(-4),
      source: source ? publicPart(source) : null,
      token: await this.#parts.cipher.seal(websiteId, source ? secretPart(source) : token),
      savedAtMs: Date.now(),
    };
  }
}

function sameRecord(a: RegistrationRecord, b: RegistrationRecord): boolean {
  return a.savedAtMs === b.savedAtMs && a.token.sealed === b.token.sealed && a.shop === b.shop;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
