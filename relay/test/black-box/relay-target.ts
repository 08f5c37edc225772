import type { RecordingUpstream } from './recording-upstream.js';

/** What a test sets; each target turns it into its own config (a JSON config, a WordPress option). */
export interface RelayKnobs {
  readonly upstream: RecordingUpstream;
  /** Seconds. */
  readonly interval: number;
  readonly maxStale: number;
  readonly hourlyBudget: number;
}

export interface StartedRelay {
  /** The full URL the element would ask, without the query: `…/api/v1/realtime`. */
  readonly realtimeUrl: string;
  /** Everything the relay logged so far (for the token scan). */
  logs(): Promise<string>;
  close(): Promise<void>;
}

/**
 * One implementation of the relay's promises, started fresh for each contract test against a
 * fresh upstream. The contract (`relay-contract.ts`) is written once and run against each.
 */
export interface RelayTarget {
  readonly name: string;
  start(knobs: RelayKnobs): Promise<StartedRelay>;
  /**
   * Whether the relay's error bodies may quote the service's own words (token redacted). The Node
   * relay does, for the developer who runs it; the WordPress plugin never does, as its error
   * bodies reach shoppers' browsers on a merchant's site.
   */
  readonly quotesServiceWords: boolean;
}
