import type { StoredFailure } from './store/relay-store.js';

/** What a browser is told when the relay has no answer to give: the status, the relay's own words, and when to ask again. */
export interface UnavailableAnswer {
  readonly kind: 'unavailable';
  readonly status: 502 | 503 | 504;
  readonly message: string;
  readonly retryAtMs: number;
}

/** Why the relay has nothing younger than `maxStale` for a website, each with its own words for the browser. */
export type Unavailability =
  /** The browser's wait ended before the store and the service did. */
  | { readonly cause: 'still-waiting' }
  /** Another instance holds the claim and has not written an answer yet. */
  | { readonly cause: 'other-instance' }
  /** The service's last answer was a failure. */
  | { readonly cause: 'service-failed'; readonly failure: StoredFailure }
  | { readonly cause: 'store-down' }
  | { readonly cause: 'budget-spent'; readonly hourlyBudget: number }
  | { readonly cause: 'no-answer-yet' };

export interface UnavailableTimes {
  readonly nowMs: number;
  /** When the relay asks again (when a browser should come back). */
  readonly retryAtMs: number;
  /** Seconds an answer is served for at most: the `maxStale` of the relay's config. */
  readonly maxStale: number;
}

/** How soon a browser whose wait ran out asks again: the relay's work goes on meanwhile. */
const STILL_WAITING_RETRY_MS = 1_000;

/** The relay's answer to a browser when it has none to give: a failure's status, and words that say why and when to come back. */
export function unavailableAnswer(unavailability: Unavailability, times: UnavailableTimes): UnavailableAnswer {
  const { nowMs, retryAtMs, maxStale } = times;
  const fallback = `the relay holds no answer younger than ${maxStale} s; it asks again in ${seconds(retryAtMs - nowMs)} s`;
  const unavailable = (status: UnavailableAnswer['status'], cause: string): UnavailableAnswer => ({
    kind: 'unavailable',
    status,
    message: `${cause}; ${fallback}.`,
    retryAtMs,
  });
  switch (unavailability.cause) {
    case 'still-waiting':
      return {
        kind: 'unavailable',
        status: 503,
        message: `The relay is still waiting for the analytics service for this website; ask again in ${seconds(STILL_WAITING_RETRY_MS)} s.`,
        retryAtMs: nowMs + STILL_WAITING_RETRY_MS,
      };
    case 'other-instance':
      return unavailable(503, 'Another relay instance is asking the analytics service for this website and has not answered yet');
    case 'service-failed': {
      const { kind, reason } = unavailability.failure;
      return unavailable(kind === 'timeout' ? 504 : kind === 'rate-limited' ? 503 : 502, `The analytics service ${reason}`);
    }
    case 'store-down':
      return unavailable(503, 'The relay cannot reach its shared store');
    case 'budget-spent':
      return unavailable(503, `The relay's hourly budget of ${unavailability.hourlyBudget} upstream requests is spent`);
    case 'no-answer-yet':
      return unavailable(503, 'The relay has no answer for this website yet');
  }
}

/** Whole seconds, rounded up, never below 0: what the relay's words say of a time to come. */
export function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}
