import type { RealtimeReport } from '../../../src/contract/report.js';
import type { RelayConfig } from '../config.js';
import type { SourceSettings } from '../sources/source.js';
import { AttemptLimits } from './attempt-limits.js';
import { holdsStoredToken, isSameOwnership, proofToCheck, storedSource } from './ownership-proof.js';
import { describeSite, publicPart, secretEnding, secretPart } from './registered-source.js';
import {
  checkRequest,
  configured,
  isToken,
  isWebsiteId,
  refusal,
  storeDown,
  TOKEN_SHAPE,
  WEBSITE_ID_SHAPE,
  WRONG_TOKEN,
} from './registration-checks.js';
import { type RegisteredWebsite, RegistrationIndex } from './registration-index.js';
import {
  DEFAULT_WEBSITE_HOURLY_BUDGET,
  type RegistrationRecord,
  readRegistrationRecord,
  unsealedOf,
  viewOf,
} from './registration-record.js';
import type { RegistrationStore } from './registration-store.js';
import type {
  BindOutcome,
  Refusal,
  RegisterOutcome,
  RegistrationRequest,
  Registrations,
  RegistrationView,
  RemoveOutcome,
} from './registrations.js';
import { checkWithService, type ServiceCheckParts } from './service-check.js';
import type { TokenCipher } from './token-cipher.js';

// Importers of the registry keep one path for what it serves.
export type { RegisteredWebsite } from './registration-index.js';

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

/**
 * The relay's registered websites: `Registrations` for owners and the Shopify app, each change
 * checked with the service, written to the store, then served from this instance's index.
 */
export class WebsiteRegistry implements Registrations {
  readonly #parts: RegistryParts;
  readonly #staticIds: ReadonlySet<string>;
  readonly #index: RegistrationIndex;
  readonly #attempts: AttemptLimits;
  /** Settles once the registrations were first read (or failed to be): until then a miss is not yet a 404. */
  readonly ready: Promise<void>;

  constructor(parts: RegistryParts) {
    this.#parts = parts;
    this.#staticIds = new Set(parts.config.websites.map((website) => website.id));
    this.#attempts = new AttemptLimits(parts.store, parts.config.registrationsPerHour, parts.now);
    this.#index = new RegistrationIndex({ ...parts, intervalSeconds: parts.config.interval });
    this.ready = this.#index.ready;
  }

  /** A look at the store is due: the request that finds it so waits for it (see `RegistrationIndex`). */
  get isSyncDue(): boolean {
    return this.#index.isSyncDue;
  }

  get size(): number {
    return this.#index.size;
  }

  /** Reads the store's registrations when its version moved; never rejects. */
  sync(): Promise<void> {
    return this.#index.sync();
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
    if (!existing && this.#index.size >= this.#parts.config.maxWebsites) {
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
    const stored = await this.#compareAndSet(record, existing, `store "${websiteId}"`);
    if (stored !== true) return stored;
    await this.#index.adopt(record);
    await this.#parts.keepFirstAnswer(websiteId, checked.report).catch(() => {});
    return { outcome: existing ? 'replaced' : 'created', registration: viewOf(record) };
  }

  async remove(websiteId: string, token: string, requester: string, source?: SourceSettings): Promise<RemoveOutcome> {
    if (this.#staticIds.has(websiteId)) return configured(websiteId);
    if (!isWebsiteId(websiteId)) return refusal(400, WEBSITE_ID_SHAPE);
    if (source === undefined && !isToken(token)) return refusal(400, TOKEN_SHAPE);
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
    return this.#removeRecord(existing);
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
    const before = this.#index.websiteOfShop(shop);
    if (before !== undefined && before !== websiteId) {
      const removed = await this.#removeShopRecord(shop, before);
      if (removed.outcome === 'refused') return removed;
    }
    // The shop is part of what the token is sealed with: binding seals the record anew, under the newest key.
    let secret: string;
    try {
      secret = await this.#parts.cipher.open(existing);
    } catch (error) {
      this.#parts.log(`registrations: could not bind "${websiteId}" to ${shop}: its record does not decrypt (${describe(error)})`);
      return refusal(502, `The registration of "${websiteId}" cannot be read on this relay: register it again, then bind it`);
    }
    const record = await this.#parts.cipher.seal({ ...unsealedOf(existing), shop, savedAtMs: Date.now() }, secret);
    const stored = await this.#compareAndSet(record, existing, `bind "${websiteId}" to ${shop}`);
    if (stored !== true) return stored;
    await this.#index.adopt(record);
    return { outcome: 'bound', registration: viewOf(record) };
  }

  async websiteOfShop(shop: string): Promise<string | null> {
    await this.#index.syncIfDue();
    return this.#index.websiteOfShop(shop) ?? null;
  }

  async removeShop(shop: string): Promise<void> {
    await this.sync();
    const websiteId = this.#index.websiteOfShop(shop);
    if (websiteId === undefined) return;
    const removed = await this.#removeShopRecord(shop, websiteId);
    if (removed.outcome === 'refused') throw new Error(removed.message);
  }

  /**
   * Removes the registration bound to `shop`, as the store holds it now: one that changed meanwhile
   * (its owner, `rotate-keys`) is read again and removed if still bound; one no longer bound stays.
   */
  async #removeShopRecord(shop: string, websiteId: string): Promise<RemoveOutcome> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const stored = await this.#storedRecord(websiteId);
      if (stored === 'down') return storeDown();
      if (stored === null || stored.shop !== shop) {
        // Gone, or bound to another shop since: nothing of this shop's is left to remove.
        if (stored === null) this.#index.forget(websiteId);
        return { outcome: 'removed' };
      }
      const removed = await this.#removeRecord(stored);
      if (removed.outcome === 'removed' || removed.status !== 409) return removed;
    }
    return changedMeanwhile(websiteId);
  }

  /** Removes the registration if it is still `expected` (compare-and-set). */
  async #removeRecord(expected: RegistrationRecord): Promise<RemoveOutcome> {
    const { websiteId } = expected;
    let removed: boolean;
    try {
      removed = await this.#parts.store.remove(expected);
    } catch (error) {
      this.#parts.log(`registrations: could not remove "${websiteId}": ${describe(error)}`);
      return storeDown();
    }
    if (!removed) return changedMeanwhile(websiteId);
    this.#index.forget(websiteId);
    return { outcome: 'removed' };
  }

  /** Writes `record` if the stored one is still `expected` (compare-and-set): true, or the refusal to answer. */
  async #compareAndSet(record: RegistrationRecord, expected: RegistrationRecord | null, doing: string): Promise<true | Refusal> {
    try {
      if (await this.#parts.store.put(record, expected)) return true;
    } catch (error) {
      this.#parts.log(`registrations: could not ${doing}: ${describe(error)}`);
      return storeDown();
    }
    return changedMeanwhile(record.websiteId);
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
    // A source's secrets are sealed as one text, under the same key and bound to the same record as a token.
    const unsealed = {
      websiteId,
      ...fields,
      tokenEnding: source ? secretEnding(source) : token.slice(-4),
      source: source ? publicPart(source) : null,
      savedAtMs: Date.now(),
    };
    return this.#parts.cipher.seal(unsealed, source ? secretPart(source) : token);
  }
}

/** A compare-and-set lost: another registration, removal or rotation of the website came first. */
function changedMeanwhile(websiteId: string): Refusal {
  return refusal(
    409,
    `"${websiteId}" was registered, changed or removed by another request meanwhile; nothing was changed. Look at it again before you retry`,
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
