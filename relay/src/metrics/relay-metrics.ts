import { Counter, Gauge, Histogram, MetricsRegistry } from './metrics-registry.js';

/** Seconds: a loopback Redis answers in well under a millisecond; the store's commands are cut off at half a second. */
const STORE_SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** A website counts as served while a shopper asked for it within this many intervals. */
const SERVED_WITHIN_INTERVALS = 3;

/** What the relay's caches tell the metrics; optional in their parts, so a relay without `metricsToken` pays nothing. */
export interface CacheMetrics {
  /** A website's answer was due and looked for: it is being served. */
  websiteServed(websiteId: string): void;
  /** One upstream request's outcome: `report`, or the failure's kind. */
  upstreamAnswered(outcome: string): void;
  /** The fleet's hourly budget (or a registered website's own) refused an upstream request, or the instance's own while the store is down. */
  budgetRefused(budget: 'fleet' | 'store-down'): void;
}

export interface RelayMetricsParts {
  /** Websites of the config. */
  readonly configured: number;
  /** Websites registered at run time, as this instance knows them (0 without `selfServe`). */
  readonly registered: () => number;
  readonly intervalSeconds: number;
  readonly now: () => number;
}

/**
 * The operator's view of one relay instance (`GET /metrics`): websites configured, registered and
 * served, upstream requests by outcome, budget refusals, registration attempts by outcome, and each
 * store's round trips. Counted where each event happens; exposed in Prometheus' text format.
 */
export class RelayMetrics implements CacheMetrics {
  readonly #registry = new MetricsRegistry();
  readonly #upstream: Counter;
  readonly #budgetRefusals: Counter;
  readonly #registrations: Counter;
  readonly #storeSeconds: Histogram;
  readonly #storeFailures: Counter;
  /** When each website was last looked for; pruned when scraped, so it holds only websites served lately. */
  readonly #lastServedAtMs = new Map<string, number>();
  readonly #parts: RelayMetricsParts;

  constructor(parts: RelayMetricsParts) {
    this.#parts = parts;
    const registry = this.#registry;
    registry.add(new Gauge('live_visitors_relay_configured_websites', "Websites in the relay's config.", () => parts.configured));
    registry.add(
      new Gauge(
        'live_visitors_relay_registered_websites',
        'Websites registered at run time, as this instance knows them.',
        parts.registered,
      ),
    );
    registry.add(
      new Gauge(
        'live_visitors_relay_served_websites',
        `Websites a shopper asked this instance for within the last ${SERVED_WITHIN_INTERVALS} intervals.`,
        () => this.#servedLately(),
      ),
    );
    this.#upstream = registry.add(
      new Counter(
        'live_visitors_relay_upstream_requests_total',
        'Requests this instance sent to an analytics service, by outcome: report, or the failure kind.',
        ['outcome'],
      ),
    );
    this.#budgetRefusals = registry.add(
      new Counter(
        'live_visitors_relay_budget_refusals_total',
        "Upstream requests not sent because an hourly budget was spent: the fleet's (or a registered website's), or this instance's own while the store is down.",
        ['budget'],
      ),
    );
    this.#registrations = registry.add(
      new Counter(
        'live_visitors_relay_registration_attempts_total',
        'Answers of the registration API, by method and outcome (created, replaced, removed, refused, failed) and status.',
        ['method', 'outcome', 'status'],
      ),
    );
    this.#storeSeconds = registry.add(
      new Histogram(
        'live_visitors_relay_store_round_trip_seconds',
        "Round trips to the relay's stores, by store (relay, registrations) and operation.",
        STORE_SECONDS_BUCKETS,
        ['store', 'operation'],
      ),
    );
    this.#storeFailures = registry.add(
      new Counter('live_visitors_relay_store_failures_total', 'Store round trips that failed, by store and operation.', [
        'store',
        'operation',
      ]),
    );
  }

  websiteServed(websiteId: string): void {
    this.#lastServedAtMs.set(websiteId, this.#parts.now());
  }

  upstreamAnswered(outcome: string): void {
    this.#upstream.inc({ outcome });
  }

  budgetRefused(budget: 'fleet' | 'store-down'): void {
    this.#budgetRefusals.inc({ budget });
  }

  /** The registration API's answer, read off its status (201 created, 200 replaced, 204 removed). */
  registrationAnswered(method: string, status: number): void {
    this.#registrations.inc({ method, outcome: registrationOutcome(status), status: String(status) });
  }

  storeRoundTrip(store: string, operation: string, seconds: number, failed: boolean): void {
    this.#storeSeconds.observe(seconds, { store, operation });
    if (failed) this.#storeFailures.inc({ store, operation });
  }

  expose(): string {
    return this.#registry.expose();
  }

  #servedLately(): number {
    const sinceMs = this.#parts.now() - SERVED_WITHIN_INTERVALS * this.#parts.intervalSeconds * 1000;
    for (const [websiteId, atMs] of this.#lastServedAtMs) if (atMs < sinceMs) this.#lastServedAtMs.delete(websiteId);
    return this.#lastServedAtMs.size;
  }
}

function registrationOutcome(status: number): string {
  if (status === 201) return 'created';
  if (status === 200) return 'replaced';
  if (status === 204) return 'removed';
  return status >= 500 ? 'failed' : 'refused';
}
