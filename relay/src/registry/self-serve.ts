import { type CorsOptions, CorsPolicy } from '../../../server-kit/cors.js';
import { type RelayConfig, RelayConfigError, type RelayedWebsite } from '../config.js';
import { etagFor } from '../responses.js';
import type { RelayStore } from '../store/relay-store.js';
import type { UpstreamResult } from '../upstream.js';
import type { WebsiteCache } from '../website-cache.js';
import { MemoryRegistrationStore } from './memory-registration-store.js';
import type { RegistrationStore } from './registration-store.js';
import { TokenCipher } from './token-cipher.js';
import { WebsiteBudgetStore } from './website-budget-store.js';
import { type RegisteredWebsite, WebsiteRegistry } from './website-registry.js';

/** A registered website as the hot path serves it. */
export interface ServedRegistration {
  /** Null when its record does not decrypt: then it answers 502 with `unreadable`. */
  readonly cache: WebsiteCache | null;
  readonly unreadable: string | null;
  /** Its own `allowOrigins` (any origin when the owner gave none). */
  readonly cors: CorsPolicy;
  /** Served only through this shop's App Proxy, when bound to one. */
  readonly shop: string | null;
}

export interface SelfServeParts {
  readonly config: RelayConfig;
  /** What the fleet shares: answers, claims, the relay's budget. */
  readonly store: RelayStore;
  /** Where registrations live; memory when absent, which the config must allow in so many words. */
  readonly registrationStore: RegistrationStore | undefined;
  /** The relay's cache for one website, on the store given (which counts the website's own budget). */
  readonly cacheFor: (website: RelayedWebsite, store: RelayStore) => WebsiteCache;
  readonly fetchReport: (website: RelayedWebsite) => Promise<UpstreamResult>;
  /** The CORS options of the relay's answers; only the origins differ per website. */
  readonly cors: Omit<CorsOptions, 'allowOrigins'>;
  readonly now: () => number;
  readonly log: (line: string) => void;
}

/**
 * Websites registered at run time, wired into the relay: the registry, and each registered
 * website's cache and CORS policy, rebuilt whenever its registration changes (here or, through the
 * store, on another instance).
 */
export class SelfServe {
  readonly registry: WebsiteRegistry;
  /** Where the registrations live; the Shopify app also spends its session tokens' ids there. */
  readonly registrationStore: RegistrationStore;
  readonly #served = new Map<string, ServedRegistration>();
  readonly #anyOrigin: CorsPolicy;

  constructor(parts: SelfServeParts) {
    const { config, store, cacheFor, now } = parts;
    const registrationStore = parts.registrationStore ?? memoryStoreIfAllowed(config);
    this.registrationStore = registrationStore;
    this.#anyOrigin = new CorsPolicy({ ...parts.cors, allowOrigins: ['*'] });
    const served = (registered: RegisteredWebsite): ServedRegistration => {
      const { record, website, unreadable } = registered;
      const cors = record.allowOrigins === null ? this.#anyOrigin : new CorsPolicy({ ...parts.cors, allowOrigins: record.allowOrigins });
      const budgeted = new WebsiteBudgetStore(store, registrationStore, record.websiteId, record.hourlyBudget);
      return { cache: website && cacheFor(website, budgeted), unreadable, cors, shop: record.shop };
    };
    this.registry = new WebsiteRegistry({
      config,
      store: registrationStore,
      cipher: new TokenCipher(config.encryptionKeys),
      fetchReport: parts.fetchReport,
      // The check's report, kept as a fleet's answer is: the first shopper is served without a second request.
      keepFirstAnswer: async (websiteId, report) => {
        const body = JSON.stringify(report);
        const nowMs = now();
        const state = {
          answer: { body, etag: await etagFor(body), fetchedAtMs: nowMs },
          failures: 0,
          nextAttemptAtMs: nowMs + config.interval * 1000,
          failure: null,
        };
        await store.write(websiteId, state, (config.maxStale + config.interval) * 1000);
      },
      onChange: (websiteId, registered) => {
        if (registered) this.#served.set(websiteId, served(registered));
        else this.#served.delete(websiteId);
      },
      now,
      log: parts.log,
    });
  }

  /** From memory, as of the registry's last look at the store; undefined when not registered. */
  served(websiteId: string): ServedRegistration | undefined {
    return this.#served.get(websiteId);
  }
}

/** Registrations kept in memory are lost on a restart: only when the config says so in so many words. */
function memoryStoreIfAllowed(config: RelayConfig): RegistrationStore {
  if (!config.registrationsMayBeLost) {
    throw new RelayConfigError('createRelay options', [
      "selfServe keeps owners' registrations, but nothing would keep them across a restart: use a Redis store, registrationsFile (one Node instance), " +
        'the Durable Object store on Workers, or set registrationsMayBeLost: true if owners may have to register again after every restart (a demo)',
    ]);
  }
  return new MemoryRegistrationStore();
}
