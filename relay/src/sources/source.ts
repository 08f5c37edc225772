import type { After } from '../../../src/contract/timers.js';
import type { Redactor } from '../redaction.js';
import type { FetchFunction, UpstreamFailure } from '../upstream.js';

/** The analytics services a website can read its count from, besides the contract's own. */
export const SOURCE_KINDS = ['plausible', 'umami', 'matomo', 'ga4', 'fathom'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/**
 * A website's source as parsed from the config: its kind, the service's API root, and the
 * kind's own fields. Secrets are readable but not enumerable, like a website's token, so logging
 * or serialising a config never shows them.
 */
export interface SourceSettings {
  readonly kind: SourceKind;
  /** The service's API root, without a trailing slash. */
  readonly base: string;
  /** Requests this instance sends the service for this website in a rolling hour, at most. */
  readonly hourlyBudget: number;
}

/** What the relay lends a source for one read. */
export interface SourceCall {
  readonly fetch: FetchFunction;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  readonly timeoutMs: number;
  /** What the timeout runs on: the relay's injected timers; the system's when absent. */
  readonly timers?: After;
  /** Knows the relay's secrets and this source's, the ones obtained at run time included. */
  readonly redactor: Redactor;
  /** This call, redacting more secrets: ones the source obtained at run time (a login token, an access token). */
  withSecrets(...secrets: string[]): SourceCall;
}

/** A count as the service gave it, with when it was collected if the service says so. */
export type SourceReading = { readonly count: number } | { readonly failure: UpstreamFailure };

/** One kind of source: how its settings are read, what it counts, and how it asks. */
export interface SourceDefinition<Settings extends SourceSettings> {
  readonly kind: Settings['kind'];
  /** The public API root a source of this kind uses when `base` is left out; null when there is none (self-hosted only). */
  readonly defaultBase: string | null;
  /** Within the service's documented limit, for one key; see docs/relay.md "Sources". */
  readonly defaultHourlyBudget: number;
  /** The most `hourlyBudget` may be: the service's documented limit for one key (or a sane ceiling where it documents none). */
  readonly maxHourlyBudget: number;
  /** The least time between two requests for one website, whatever the relay's interval. */
  readonly minIntervalSeconds: number;
  /** Every field the kind accepts besides `kind`, `base` and `hourlyBudget`. */
  readonly fields: readonly string[];
  /** The fields whose values are secrets: redacted, not enumerable, and readable from the environment. */
  readonly secretFields: readonly string[];
  /**
   * Checks the kind's own fields of an entry, naming each problem after `at`. Secrets arrive
   * resolved: a string (or the key's object), null when refused already, undefined when not given.
   */
  parse(
    entry: Readonly<Record<string, unknown>>,
    at: string,
    issues: string[],
  ): Omit<Settings, 'kind' | 'base' | 'hourlyBudget'> | undefined;
  /** Minutes the count covers; null when the service does not say. */
  windowMinutes(settings: Settings): number | null;
  /** Every secret of these settings, for redaction. */
  secrets(settings: Settings): readonly string[];
  /** Asks the service once; never rejects. `state` lives as long as the settings do (a login, an access token). */
  read(settings: Settings, call: SourceCall, state: Map<string, unknown>): Promise<SourceReading>;
}

/** A secret the kind cannot do without: reported when not given, passed over when already refused. */
export function requiredSecret(
  entry: Readonly<Record<string, unknown>>,
  field: string,
  at: string,
  what: string,
  issues: string[],
): string | undefined {
  const value = entry[field];
  if (value === undefined) issues.push(`${at}.${field} is required: ${what}`);
  return typeof value === 'string' ? value : undefined;
}
