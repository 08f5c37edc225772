import type { RollingHourLimit } from '../../server-kit/rolling-hour.js';
import type { RealtimeReport } from '../../src/contract/report.js';
import { redact } from '../../src/contract/service-message.js';
import { retryDelay } from '../../src/realtime/backoff.js';
import { etagFor } from './answers.js';
import type { RelayConfig, RelayedWebsite } from './config.js';
import { type FetchFunction, fetchUpstreamReport, type UpstreamFailure } from './upstream.js';

/** A validated upstream answer, serialised once and served to every browser until it is too old. */
export interface CachedAnswer {
  readonly report: RealtimeReport;
  /** Exactly the contract's three fields; never the upstream body itself. */
  readonly body: string;
  readonly etag: string;
  readonly receivedAtMs: number;
}

export type WebsiteAnswer =
  | {
      readonly kind: 'report';
      /** Fresh, or (while the service fails or the budget is spent) stale but younger than `maxStale`. */
      readonly answer: CachedAnswer;
    }
  | {
      readonly kind: 'unavailable';
      readonly status: 502 | 503 | 504;
      readonly message: string;
      readonly retryAtMs: number;
    };

export interface WebsiteCacheParts {
  readonly website: RelayedWebsite;
  readonly config: Pick<RelayConfig, 'upstream' | 'interval' | 'maxStale'>;
  /** The relay's upstream requests in the rolling hour, shared by all its websites. */
  readonly budget: RollingHourLimit;
  readonly fetch: FetchFunction;
  readonly now: () => number;
  readonly random: () => number;
  readonly upstreamTimeoutMs: number;
  /** Every token of the relay: a failure's text may echo another website's. */
  readonly tokens: readonly string[];
  readonly log: (line: string) => void;
}

/**
 * The relay's memory of one website: the last good answer, kept apart from the latest
 * failure, and the single upstream request in flight that every browser asking meanwhile
 * waits for. The service is asked at most once per interval, less often while it fails.
 */
export class WebsiteCache {
  readonly #parts: WebsiteCacheParts;
  #answer: CachedAnswer | undefined;
  #refreshing: Promise<void> | undefined;
  #nextAttemptAtMs = Number.NEGATIVE_INFINITY;
  #failures = 0;
  #lastFailure: UpstreamFailure | undefined;
  #budgetSpentReported = false;

  constructor(parts: WebsiteCacheParts) {
    this.#parts = parts;
  }

  get #intervalMs(): number {
    return this.#parts.config.interval * 1000;
  }

  get #maxStaleMs(): number {
    return this.#parts.config.maxStale * 1000;
  }

  /** What to tell a browser now: asks the service first when the answer is due and asking is allowed. */
  async current(): Promise<WebsiteAnswer> {
    const nowMs = this.#parts.now();
    if (!this.#isFresh(nowMs)) {
      this.#refreshIfAllowed(nowMs);
      if (this.#refreshing) await this.#refreshing;
    }
    return this.#outcome(this.#parts.now());
  }

  #isFresh(nowMs: number): boolean {
    return this.#answer !== undefined && nowMs - this.#answer.receivedAtMs < this.#intervalMs;
  }

  #refreshIfAllowed(nowMs: number): void {
    if (this.#refreshing || nowMs < this.#nextAttemptAtMs) return;
    if (!this.#parts.budget.tryTake(nowMs)) {
      this.#reportBudgetSpent(nowMs);
      return;
    }
    this.#budgetSpentReported = false;
    this.#refreshing = this.#refresh().finally(() => {
      this.#refreshing = undefined;
    });
  }

  async #refresh(): Promise<void> {
    const { website, config, fetch, now, upstreamTimeoutMs } = this.#parts;
    const result = await fetchUpstreamReport({ upstream: config.upstream, website, fetch, now, timeoutMs: upstreamTimeoutMs });
    if ('failure' in result) {
      this.#recordFailure(result.failure);
      return;
    }
    const body = JSON.stringify(result.report);
    const receivedAtMs = now();
    this.#answer = { report: result.report, body, etag: await etagFor(body), receivedAtMs };
    this.#nextAttemptAtMs = receivedAtMs + this.#intervalMs;
    if (this.#failures > 0) this.#say(`the analytics service answers again, after ${this.#failures} failed request(s)`);
    this.#failures = 0;
    this.#lastFailure = undefined;
  }

  #recordFailure(failure: UpstreamFailure): void {
    const { now, random, tokens } = this.#parts;
    const nowMs = now();
    this.#failures += 1;
    this.#lastFailure = { ...failure, reason: redact(failure.reason, tokens) };
    // The widget's policy: never sooner than the interval, exponential with a cap, 429s honoured.
    this.#nextAttemptAtMs = nowMs + retryDelay(failure, this.#failures, this.#intervalMs, random());
    const fallback =
      this.#answer && nowMs - this.#answer.receivedAtMs < this.#maxStaleMs
        ? `serving the answer from ${seconds(nowMs - this.#answer.receivedAtMs)} s ago`
        : 'no answer to fall back on';
    this.#say(
      `the analytics service ${this.#lastFailure.reason}; ${fallback}; ` +
        `next attempt in ${seconds(this.#nextAttemptAtMs - nowMs)} s (failure ${this.#failures} in a row)`,
    );
  }

  #reportBudgetSpent(nowMs: number): void {
    if (this.#budgetSpentReported) return;
    this.#budgetSpentReported = true;
    const { budget } = this.#parts;
    this.#say(
      `hourly budget of ${budget.limit} upstream requests spent; no request to the analytics service ` +
        `for ${seconds(budget.nextRoomAt(nowMs) - nowMs)} s. Raise interval, or hourlyBudget if the plan allows.`,
    );
  }

  #outcome(nowMs: number): WebsiteAnswer {
    const answer = this.#answer;
    if (answer && nowMs - answer.receivedAtMs < this.#maxStaleMs) {
      return { kind: 'report', answer };
    }
    const retryAtMs = this.#nextChanceAtMs(nowMs);
    const fallback = `the relay holds no answer younger than ${this.#parts.config.maxStale} s; it asks again in ${seconds(retryAtMs - nowMs)} s`;
    const failure = this.#lastFailure;
    if (failure) {
      const status = failure.kind === 'timeout' ? 504 : failure.kind === 'rate-limited' ? 503 : 502;
      return { kind: 'unavailable', status, message: `The analytics service ${failure.reason}; ${fallback}.`, retryAtMs };
    }
    return {
      kind: 'unavailable',
      status: 503,
      message: `The relay's hourly budget of ${this.#parts.budget.limit} upstream requests is spent; ${fallback}.`,
      retryAtMs,
    };
  }

  /** The earliest moment the relay may ask the service again (back-off and budget both). */
  #nextChanceAtMs(nowMs: number): number {
    return Math.max(nowMs, this.#nextAttemptAtMs, this.#parts.budget.nextRoomAt(nowMs));
  }

  #say(text: string): void {
    this.#parts.log(`website "${this.#parts.website.id}": ${text}`);
  }
}

function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}
