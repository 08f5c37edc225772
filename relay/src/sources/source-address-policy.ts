import type { FetchFunction } from '../upstream.js';
import { type AddressClass, classifyHost } from './address-class.js';
import type { ServiceAccountKey } from './ga4-service-account.js';
import type { SourceKind, SourceSettings } from './source.js';

// Where a source may send its secrets: a registrant may name only each service's public
// HTTPS API, or an origin the operator lists in `sourceBases`; the operator's own config may name
// any. Refused before any request, and again at connect time on Node, where a name may resolve to
// this relay's own network (see source-address-lookup.ts).

/** Each kind's public API origins a registrant may name without the operator's say. */
const PUBLIC_API_ORIGINS: Readonly<Record<SourceKind, readonly string[]>> = {
  plausible: ['https://plausible.io'],
  umami: ['https://api.umami.is'],
  fathom: ['https://api.usefathom.com'],
  ga4: ['https://analyticsdata.googleapis.com'],
  // Matomo Cloud's are `https://{account}.matomo.cloud`, below.
  matomo: [],
};
/** Where Google's service account keys send their assertion (`token_uri`), as Google documents it. */
const GOOGLE_TOKEN_ORIGIN = 'https://oauth2.googleapis.com';
/** Matomo Cloud: one account's own host name, on https's own port. */
const MATOMO_CLOUD_HOST = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.matomo\.cloud$/;

/** An origin as WHATWG writes it, or null for what is no http(s) URL. */
function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** Whether the origin is one of a service's public APIs (any kind's, Google's token address, a Matomo Cloud account's). */
function isPublicApiOrigin(origin: string, kind?: SourceKind): boolean {
  const kinds = kind === undefined ? (Object.keys(PUBLIC_API_ORIGINS) as SourceKind[]) : [kind];
  if (kinds.some((each) => PUBLIC_API_ORIGINS[each].includes(origin))) return true;
  if ((kind === undefined || kind === 'ga4') && origin === GOOGLE_TOKEN_ORIGIN) return true;
  if (kind !== undefined && kind !== 'matomo') return false;
  const url = new URL(origin);
  return url.protocol === 'https:' && url.port === '' && MATOMO_CLOUD_HOST.test(url.hostname);
}

/**
 * Where a relay's sources may send requests: each service's public API, the origins the operator
 * lists in `sourceBases`, and (for what the operator's own config names, never a registrant's)
 * the config's upstream and sources.
 */
export class SourceAddressPolicy {
  readonly #listed: ReadonlySet<string>;
  readonly #operators: ReadonlySet<string>;
  readonly #listedHosts: ReadonlySet<string>;

  /** `sourceBases`: origins a registrant may name; `operatorUrls`: what the config itself names (upstream, its sources' addresses). */
  constructor(sourceBases: readonly string[], operatorUrls: readonly string[] = []) {
    this.#listed = new Set(sourceBases.map((base) => originOf(base)).filter((origin) => origin !== null));
    this.#operators = new Set([...this.#listed, ...operatorUrls.map((url) => originOf(url)).filter((origin) => origin !== null)]);
    this.#listedHosts = new Set([...this.#operators].map((origin) => new URL(origin).hostname));
  }

  /** The policy of a parsed config: its `sourceBases`, and its upstream and sources as the operator's own. */
  static of(config: {
    readonly sourceBases: readonly string[];
    readonly upstream: string;
    readonly websites: readonly { readonly source?: SourceSettings }[];
  }): SourceAddressPolicy {
    const own = config.websites.flatMap((website) => (website.source ? sourceUrls(website.source) : []));
    return new SourceAddressPolicy(config.sourceBases, [config.upstream, ...own]);
  }

  /**
   * Why a registrant's source may not be used, naming the field as the owner page does; null when
   * every address it names is its service's public API or listed in `sourceBases`. Never quotes
   * the address (a URL may hold a password).
   */
  refusal(source: SourceSettings): string | null {
    const base = originOf(source.base);
    if (base === null || !(this.#listed.has(base) || isPublicApiOrigin(base, source.kind))) {
      const publicApi = source.kind === 'matomo' ? 'Matomo Cloud (https://{account}.matomo.cloud)' : PUBLIC_API_ORIGINS[source.kind][0];
      return `source.base (the API address) must be ${source.kind}'s public API, ${publicApi}, or an address this relay's operator lists in sourceBases${this.#refusedAs(source.base)}`;
    }
    if (source.kind === 'ga4') {
      const tokenUri = originOf((source as unknown as { credentials: ServiceAccountKey }).credentials.token_uri);
      if (tokenUri === null || !(this.#listed.has(tokenUri) || tokenUri === GOOGLE_TOKEN_ORIGIN)) {
        return `source.credentials.token_uri (in the service account's JSON key) must be Google's ${GOOGLE_TOKEN_ORIGIN}/token, or an address this relay's operator lists in sourceBases${this.#refusedAs((source as unknown as { credentials: ServiceAccountKey }).credentials.token_uri)}`;
      }
    }
    return null;
  }

  /** Whether a request may go to this URL at all: a public API's, a listed origin's, or the operator's config's own. */
  allows(url: string): boolean {
    const origin = originOf(url);
    return origin !== null && (this.#operators.has(origin) || isPublicApiOrigin(origin));
  }

  /** Whether the operator named this host (in `sourceBases` or the config): then it may resolve to any address, its own network's too. */
  isListedHost(hostname: string): boolean {
    return this.#listedHosts.has(hostname.toLowerCase());
  }

  /** What the refused address is, in words, when it points at the relay's own network: it is not quoted. */
  #refusedAs(url: string): string {
    let kind: AddressClass = 'name';
    try {
      kind = classifyHost(new URL(url).hostname);
    } catch {
      // Not a URL: said so by the field's own check.
    }
    return kind === 'public' || kind === 'name' ? '' : ` (this one is a ${kind} address: the relay's own network)`;
  }
}

/** The error code of a request refused by the policy, which a failure's reason quotes ("could not be reached (ESOURCEADDRESS)"). */
export const REFUSED_ADDRESS_CODE = 'ESOURCEADDRESS';

/** A refusal's error: its code only, so no address reaches an answer. */
export function refusedAddressError(): Error {
  return Object.assign(new Error("refused by the relay's source address policy"), { code: REFUSED_ADDRESS_CODE });
}

/** Log lines about refused addresses: one a minute at most, with how many were refused since, so a flood writes little. */
export class RefusalLog {
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  #lastAtMs = Number.NEGATIVE_INFINITY;
  #untold = 0;

  constructor(log: (line: string) => void, now: () => number = Date.now) {
    this.#log = log;
    this.#now = now;
  }

  /** `what`: the refusal without any secret (a host and what it is, a field). */
  refused(what: string): void {
    const nowMs = this.#now();
    if (nowMs - this.#lastAtMs < 60_000) {
      this.#untold += 1;
      return;
    }
    const more = this.#untold > 0 ? ` (and ${this.#untold} more refused in the last minute)` : '';
    this.#lastAtMs = nowMs;
    this.#untold = 0;
    this.#log(`sources: refused ${what}: not a service's public API nor listed in sourceBases${more}`);
  }
}

/**
 * `fetch` with the policy first: a URL outside it is refused before any connection, with an error
 * whose code says so and one rate-limited log line (the origin only, never a path or a query).
 */
export function guardedFetch(fetch: FetchFunction, policy: SourceAddressPolicy, refusals: RefusalLog): FetchFunction {
  return (input, init) => {
    if (policy.allows(input)) return fetch(input, init);
    refusals.refused(`a request to ${originOf(input) ?? 'an address that is no http(s) URL'}`);
    return Promise.reject(refusedAddressError());
  };
}

/** Every address a source sends requests to: its base, and a GA4 key's token address. */
function sourceUrls(source: SourceSettings): string[] {
  const credentials = (source as unknown as { credentials?: ServiceAccountKey }).credentials;
  return credentials ? [source.base, credentials.token_uri] : [source.base];
}
