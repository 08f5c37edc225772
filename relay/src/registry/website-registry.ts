import type { RealtimeReport } from '../../../src/contract/report.js';
import type { RelayConfig } from '../config.js';
import type { SourceSettings } from '../sources/source.js';
import { RefusalLog, SourceAddressPolicy } from '../sources/source-address-policy.js';
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
import { DEFAULT_WEBSITE_HOURLY_BUDGET, type RegistrationRecord, readRegistrationRecord, viewOf } from './registration-record.js';
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
  readonly config: Pick<
    RelayConfig,
    'websites' | 'interval' | 'registrationsPerHour' | 'maxWebsites' | 'encryptionKeys' | 'selfServe' | 'sourceBases'
  >;
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
  readonly #addresses: SourceAddressPolicy;
  readonly #refusals: RefusalLog;
  /** Settles once the registrations were first read (or failed to be): until then a miss is not yet a 404. */
  readonly ready: Promise<void>;

  constructor(parts: RegistryParts) {
    this.#parts = parts;
    this.#staticIds = new Set(parts.config.websites.map((website) => website.id));
    this.#attempts = new AttemptLimits(parts.store, parts.config.registrationsPerHour, parts.now);
    this.#addresses = new SourceAddressPolicy(parts.config.sourceBases);
    this.#refusals = new RefusalLog(parts.log, parts.now);
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
    const misdirected = this.#misdirected(request.source);
    if (misdirected) return misdirected;
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
    try {
      await this.#parts.store.put(record);
    } catch (error) {
      this.#parts.log(`registrations: could not store "${websiteId}": ${describe(error)}`);
      return storeDown();
    }
    await this.#index.adopt(record);
    await this.#parts.keepFirstAnswer(websiteId, checked.report).catch(() => {});
    return { outcome: existing ? 'replaced' : 'created', registration: viewOf(record) };
  }

  async remove(websiteId: string, token: string, requester: string, source?: SourceSettings): Promise<RemoveOutcome> {
    if (this.#staticIds.has(websiteId)) return configured(websiteId);
    if (!isWebsiteId(websiteId)) return refusal(400, WEBSITE_ID_SHAPE);
    if (source === undefined && !isToken(token)) return refusal(400, TOKEN_SHAPE);
    const misdirected = this.#misdirected(source);
    if (misdirected) return misdirected;
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
    const before = this.#index.websiteOfShop(shop);
    if (before !== undefined && before !== websiteId) {
      const removed = await this.#removeRecord(before);
      if (removed.outcome === 'refused') return removed;
    }
    let record: RegistrationRecord = { ...existing, shop, savedAtMs: Date.now() };
    // A write re-encrypts under the newest key, as every write does.
    const entry = this.#index.entry(websiteId);
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
    this.#index.forget(websiteId);
    return { outcome: 'removed' };
  }

  /** A 400 for a source whose addresses the operator did not choose (issue 35), before any request; null for any other. */
  #misdirected(source: SourceSettings | undefined): Refusal | null {
    const refused = source && this.#addresses.refusal(source);
    if (!refused) return null;
    this.#refusals.refused(`a registration's ${source.kind} source`);
    return refusal(400, refused);
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
