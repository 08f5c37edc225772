import type { SourceSettings } from '../sources/source.js';
import type { PublicSource } from './registered-source.js';

/**
 * Websites registered at run time by their owners (`selfServe: true`), with the token as the only
 * proof of ownership: there are no accounts. The relay's `PUT`/`DELETE /api/v1/websites/{id}`,
 * its owner page and the Shopify app all go through this one interface; `createRelay` makes the
 * one instance and hands it to each of them. Tokens are kept encrypted and never come back out.
 */
export interface Registrations {
  /**
   * Registers the website, or replaces its registration (a new token, new origins). The service is
   * asked once with the token; only a valid report for exactly this website registers it. Nothing is
   * stored when it is refused for any reason.
   */
  register(request: RegistrationRequest): Promise<RegisterOutcome>;
  /**
   * Removes a registration, given the stored token or one the service accepts now. A source's
   * registration: its API key as `token`, or the source sent whole (`token` empty), stored or accepted now for the same site.
   */
  remove(websiteId: string, token: string, requester: string, source?: SourceSettings): Promise<RemoveOutcome>;
  /** What an owner may see of a registration: never more of the token than its last four characters. Null when not registered. */
  read(websiteId: string): Promise<RegistrationView | null>;
  /**
   * Binds a registered website to a Shopify shop: requests the App Proxy signed for that shop are
   * then served with it, and unsigned ones refused. One website per shop; a new binding replaces the
   * shop's old one (and its registration, which only that shop used).
   */
  bindShop(shop: string, websiteId: string): Promise<BindOutcome>;
  /** The website bound to a shop, or null. */
  websiteOfShop(shop: string): Promise<string | null>;
  /** The app was uninstalled or the shop asked to be forgotten: its website's registration and token go. Idempotent. */
  removeShop(shop: string): Promise<void>;
}

export interface RegistrationRequest {
  readonly websiteId: string;
  /** Sent to the service once to prove ownership, then kept only encrypted. */
  readonly token: string;
  /** Origins whose pages may read the count; null or absent: any origin (the count is public on the shop anyway). */
  readonly allowOrigins?: readonly string[] | null;
  /** Upstream requests an hour for this website; 100 (the Free plan) when absent. The relay's own `hourlyBudget` still caps them all. */
  readonly hourlyBudget?: number;
  /** Who asks, for the per-requester limit of `registrationsPerHour`: the client's address, or `shop:{domain}` for the Shopify app. */
  readonly requester: string;
  /** Where the count comes from when not the contract's service: its secrets prove ownership instead of `token`, which is then empty. */
  readonly source?: SourceSettings;
}

/** A registration as its owner may see it. */
export interface RegistrationView {
  readonly websiteId: string;
  /** Null: any origin. */
  readonly allowOrigins: readonly string[] | null;
  readonly hourlyBudget: number;
  /** The token's last four characters, so an owner can tell which token is saved (a source's API key's; empty for a password or a JSON key). */
  readonly tokenEnding: string;
  /** The source's kind and fields without its secrets; null: the contract's service. */
  readonly source: PublicSource | null;
  /** The Shopify shop it is bound to, if any. */
  readonly shop: string | null;
}

/** Why nothing was done, in words for the owner, with the HTTP status the API answers. */
export interface Refusal {
  readonly outcome: 'refused';
  /**
   * 400 malformed, 401 the service refused the token, 404 the service does not know the website,
   * 409 a website of the relay's config (or another write of the website came first: every write is compare-and-set), 413 too big, 429 too many attempts or websites,
   * 502/504 the service failed or timed out (or the stored record does not decrypt), 503 the store is down.
   */
  readonly status: 400 | 401 | 404 | 409 | 413 | 429 | 502 | 503 | 504;
  readonly message: string;
  /** Seconds, for 429. */
  readonly retryAfterSeconds?: number;
}

export type RegisterOutcome = { readonly outcome: 'created' | 'replaced'; readonly registration: RegistrationView } | Refusal;

export type RemoveOutcome = { readonly outcome: 'removed' } | Refusal;

export type BindOutcome = { readonly outcome: 'bound'; readonly registration: RegistrationView } | Refusal;
