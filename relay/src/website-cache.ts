import type { RollingHourLimit } from '../../server-kit/rolling-hour.js';
import { redact } from '../../src/contract/service-message.js';
import { retryDelay } from '../../src/realtime/backoff.js';
import { etagFor } from './answers.js';
import type { RelayConfig, RelayedWebsite } from './config.js';
import type { RelayStore, SharedAnswer, WebsiteState } from './store/relay-store.js';
import { type FetchFunction, fetchUpstreamReport } from './upstream.js';

/** A validated upstream answer, serialised once and served to every browser until it is too old. */
export type CachedAnswer = SharedAnswer;

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
  readonly config: Pick<RelayConfig, 'upstream' | 'interval' | 'maxStale' | 'hourlyBudget'>;
  /** What the fleet shares: the website's state, the claim to ask upstream, the hourly budget. */
  readonly store: RelayStore;
  /** Names this instance in the store's claims. */
  readonly holder: string;
  /** This instance's own budget while the store is unreachable (`storeDownBudget`), shared by its websites. */
  readonly storeDownBudget: RollingHourLimit;
  readonly fetch: FetchFunction;
  readonly now: () => number;
  readonly random: () => number;
  readonly upstreamTimeoutMs: number;
  /** Every token of the relay: a failure's text may echo another website's. */
  readonly tokens: readonly string[];
  readonly log: (line: string) => void;
}

const NOTHING_YET: WebsiteState = { answer: null, failures: 0, nextAttemptAtMs: Number.NEGATIVE_INFINITY, failure: null };
/** How often an instance looks at the store while another one asks upstream, and after the store failed. */
const STORE_POLL_MS = 100;
const STORE_RETRY_MS = 1_000;
/**
 * A claim outlives the upstream request it covers by this much, and no more: the holder's store
 * round trips (a read, the budget, the write, each cut off after half a second by the Redis
 * store) fit in it twice, so a slow store cannot let the claim lapse before the answer is written.
 */
const CLAIM_SLACK_MS = 4_000;

/**
 * One website as this instance serves it: a local copy of the fleet's state, refreshed from the
 * shared store when it is due, so a fresh answer costs no I/O at all. When the answer is due, one
 * instance of the fleet claims the right to ask upstream, within the fleet's hourly budget, and
 * writes the result to the store; the others (and every browser of this instance meanwhile) wait
 * for it, boundedly. Without a store the instance serves what it has, and asks upstream on its
 * own only within `storeDownBudget`.
 */
export class WebsiteCache {
  readonly #parts: WebsiteCacheParts;
  #state: WebsiteState = NOTHING_YET;
  #syncing: Promise<void> | undefined;
  /** Not before this time does this instance look at the store again (back-off, budget, a failed store). */
  #nextSyncAtMs = Number.NEGATIVE_INFINITY;
  #budgetRoomAtMs = Number.NEGATIVE_INFINITY;
  #budgetSpentReported = false;
  #storeDown = false;

  constructor(parts: WebsiteCacheParts) {
    this.#parts = parts;
  }

  get #intervalMs(): number {
    return this.#parts.config.interval * 1000;
  }

  get #maxStaleMs(): number {
    return this.#parts.config.maxStale * 1000;
  }

  /** What to tell a browser now: brings the answer up to date first when it is due. */
  async current(): Promise<WebsiteAnswer> {
    const nowMs = this.#parts.now();
    if (!this.#isFresh(nowMs) && nowMs >= this.#nextSyncAtMs) {
      this.#syncing ??= this.#sync().finally(() => {
        this.#syncing = undefined;
      });
    }
    if (this.#syncing) await this.#syncing;
    return this.#outcome(this.#parts.now());
  }

  /** The answer, when it is fresh: served without any I/O or promise (the relay's hot path). */
  freshAnswer(nowMs: number): WebsiteAnswer | undefined {
    const { answer } = this.#state;
    return answer !== null && nowMs - answer.fetchedAtMs < this.#intervalMs ? { kind: 'report', answer } : undefined;
  }

  #isFresh(nowMs: number): boolean {
    const { answer } = this.#state;
    return answer !== null && nowMs - answer.fetchedAtMs < this.#intervalMs;
  }

  async #sync(): Promise<void> {
    const { store, website, holder, upstreamTimeoutMs, now } = this.#parts;
    const id = website.id;
    try {
      this.#adopt(await stored(() => store.read(id)));
      this.#storeAnswers();
      if (!this.#isDue(now())) return;
      if (!(await stored(() => store.claim(id, holder, upstreamTimeoutMs + CLAIM_SLACK_MS)))) {
        await this.#awaitOtherInstance();
        return;
      }
      try {
        // Another instance may have finished between our read and our claim.
        this.#adopt(await stored(() => store.read(id)));
        if (!this.#isDue(now())) return;
        const budget = await stored(() => store.takeBudget(now(), this.#parts.config.hourlyBudget));
        if (!budget.taken) {
          this.#budgetSpent(budget.nextRoomAtMs);
          // Told through the store, so no instance waits on this claim or asks before there is room.
          this.#state = { ...this.#state, nextAttemptAtMs: Math.max(this.#state.nextAttemptAtMs, budget.nextRoomAtMs) };
          await stored(() => store.write(id, this.#state, this.#keepMs()));
          return;
        }
        this.#budgetSpentReported = false;
        await this.#askUpstream();
        await stored(() => store.write(id, this.#state, this.#keepMs()));
      } finally {
        stored(() => store.release(id, holder)).catch(() => {});
      }
    } catch (error) {
      // Only the store's failures are survivable here; anything else is a bug the handler reports.
      if (!(error instanceof StoreFailure)) throw error;
      await this.#withoutStore(error.cause);
    }
  }

  /** Nothing fresh, and neither back-off nor a spent budget stands in the way. */
  #isDue(nowMs: number): boolean {
    if (this.#isFresh(nowMs) || nowMs < this.#state.nextAttemptAtMs) {
      this.#nextSyncAtMs = this.#state.nextAttemptAtMs;
      return false;
    }
    return nowMs >= this.#budgetRoomAtMs;
  }

  /** Another instance holds the claim: its result reaches the store within the claim's life. */
  async #awaitOtherInstance(): Promise<void> {
    const { store, website, now, upstreamTimeoutMs } = this.#parts;
    // Compared by value: every read from a shared store is a new object.
    const { answer, nextAttemptAtMs } = this.#state;
    const giveUpAtMs = now() + upstreamTimeoutMs + CLAIM_SLACK_MS;
    while (now() < giveUpAtMs) {
      await new Promise((resolve) => setTimeout(resolve, STORE_POLL_MS));
      this.#adopt(await stored(() => store.read(website.id)));
      if (this.#state.answer?.fetchedAtMs !== answer?.fetchedAtMs || this.#state.nextAttemptAtMs !== nextAttemptAtMs) return;
    }
  }

  /** Takes the fleet's state, unless this instance holds a newer answer (got while the store was down). */
  #adopt(shared: WebsiteState | null): void {
    if (!shared) return;
    const mine = this.#state.answer;
    if (mine && (!shared.answer || shared.answer.fetchedAtMs < mine.fetchedAtMs)) this.#state = { ...shared, answer: mine };
    else this.#state = shared;
  }

  /** How long the store keeps the state: as long as its answer may be served, and past its back-off. */
  #keepMs(): number {
    const { answer, nextAttemptAtMs } = this.#state;
    const nowMs = this.#parts.now();
    const servedUntil = answer ? answer.fetchedAtMs + this.#maxStaleMs : nowMs;
    return Math.max(servedUntil, nextAttemptAtMs, nowMs) - nowMs + this.#intervalMs;
  }

  async #askUpstream(): Promise<void> {
    const { website, config, fetch, now, random, tokens, upstreamTimeoutMs } = this.#parts;
    const result = await fetchUpstreamReport({ upstream: config.upstream, website, fetch, now, timeoutMs: upstreamTimeoutMs });
    const nowMs = now();
    const previous = this.#state;
    if ('report' in result) {
      const body = JSON.stringify(result.report);
      const answer = { body, etag: await etagFor(body), fetchedAtMs: nowMs };
      this.#state = { answer, failures: 0, nextAttemptAtMs: nowMs + this.#intervalMs, failure: null };
      if (previous.failures > 0) this.#say(`the analytics service answers again, after ${previous.failures} failed request(s)`);
      return;
    }
    const failures = previous.failures + 1;
    const { kind, status, reason, retryAfterMs } = result.failure;
    // The widget's policy: never sooner than the interval, exponential with a cap, 429s honoured.
    const wait = retryDelay({ kind, retryAfterMs }, failures, this.#intervalMs, random());
    this.#state = { ...previous, failures, nextAttemptAtMs: nowMs + wait, failure: { kind, status, reason: redact(reason, tokens) } };
    const { answer } = previous;
    const fallback =
      answer && nowMs - answer.fetchedAtMs < this.#maxStaleMs
        ? `serving the answer from ${seconds(nowMs - answer.fetchedAtMs)} s ago`
        : 'no answer to fall back on';
    this.#say(
      `the analytics service ${this.#state.failure!.reason}; ${fallback}; ` +
        `next attempt in ${seconds(wait)} s (failure ${failures} in a row)`,
    );
  }

  /**
   * The store failed (unreachable, timed out, answered garbage). This instance knows neither the
   * others' answers nor what they spent: it serves its own copy until maxStale, and asks upstream
   * alone only within its `storeDownBudget` (none by default, so the fleet can never overspend).
   */
  async #withoutStore(error: unknown): Promise<void> {
    const { now, storeDownBudget } = this.#parts;
    if (!this.#storeDown) {
      this.#storeDown = true;
      const cause = error instanceof Error ? error.message : String(error);
      this.#say(
        `the shared store failed (${cause}); serving this instance's last answer up to maxStale` +
          (storeDownBudget.limit > 0 ? `, and asking upstream alone at most ${storeDownBudget.limit} times an hour` : ''),
      );
    }
    const nowMs = now();
    this.#nextSyncAtMs = nowMs + STORE_RETRY_MS;
    if (this.#isFresh(nowMs) || nowMs < this.#state.nextAttemptAtMs || !storeDownBudget.tryTake(nowMs)) return;
    await this.#askUpstream();
  }

  #storeAnswers(): void {
    if (!this.#storeDown) return;
    this.#storeDown = false;
    this.#say('the shared store answers again');
  }

  #budgetSpent(roomAtMs: number): void {
    this.#budgetRoomAtMs = roomAtMs;
    this.#nextSyncAtMs = roomAtMs;
    if (this.#budgetSpentReported) return;
    this.#budgetSpentReported = true;
    const nowMs = this.#parts.now();
    this.#say(
      `hourly budget of ${this.#parts.config.hourlyBudget} upstream requests spent; no request to the analytics service ` +
        `for ${seconds(roomAtMs - nowMs)} s. Raise interval, or hourlyBudget if the plan allows.`,
    );
  }

  #outcome(nowMs: number): WebsiteAnswer {
    const { answer, failure, nextAttemptAtMs } = this.#state;
    if (answer && nowMs - answer.fetchedAtMs < this.#maxStaleMs) return { kind: 'report', answer };
    const retryAtMs = Math.max(nowMs, nextAttemptAtMs, this.#budgetRoomAtMs, this.#nextSyncAtMs);
    const fallback = `the relay holds no answer younger than ${this.#parts.config.maxStale} s; it asks again in ${seconds(retryAtMs - nowMs)} s`;
    if (failure) {
      const status = failure.kind === 'timeout' ? 504 : failure.kind === 'rate-limited' ? 503 : 502;
      return { kind: 'unavailable', status, message: `The analytics service ${failure.reason}; ${fallback}.`, retryAtMs };
    }
    const cause = this.#storeDown
      ? 'The relay cannot reach its shared store'
      : `The relay's hourly budget of ${this.#parts.config.hourlyBudget} upstream requests is spent`;
    return { kind: 'unavailable', status: 503, message: `${cause}; ${fallback}.`, retryAtMs };
  }

  #say(text: string): void {
    this.#parts.log(`website "${this.#parts.website.id}": ${text}`);
  }
}

/** A store operation failed (unreachable, timed out, garbage): the relay carries on without the store. */
class StoreFailure extends Error {
  override name = 'StoreFailure';
}

async function stored<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (cause) {
    throw new StoreFailure(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}
