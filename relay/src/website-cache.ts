import type { RollingHourLimit } from '../../server-kit/rolling-hour.js';
import { retryDelay } from '../../src/contract/backoff.js';
import rules from '../../src/contract/rules.json' with { type: 'json' };
import type { Cancel, Timers } from '../../src/contract/timers.js';
import type { RelayConfig, RelayedWebsite } from './config.js';
import { Gate } from './gate.js';
import type { CacheMetrics } from './metrics/relay-metrics.js';
import type { Redactor } from './redaction.js';
import { etagFor } from './responses.js';
import { fetchWebsiteReport } from './sources/fetch-website-report.js';
import type { RelayStore, SharedAnswer, SharedWebsiteState } from './store/relay-store.js';
import { maxWaitMs, readBudgetDecision, readWebsiteState } from './store/stored-records.js';
import { seconds, type Unavailability, type UnavailableAnswer, unavailableAnswer } from './unavailable-answer.js';
import type { FetchFunction } from './upstream.js';

export type WebsiteAnswer =
  | {
      readonly kind: 'report';
      /** Fresh, or (while the service fails or the budget is spent) stale but younger than `maxStale`. */
      readonly answer: SharedAnswer;
    }
  | UnavailableAnswer;

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
  /** Every wait of the cache; moved with `now` by tests. */
  readonly timers: Pick<Timers, 'after'>;
  readonly random: () => number;
  readonly upstreamTimeoutMs: number;
  /** Knows the relay's own secrets and this website's: a failure's text may echo either. */
  readonly redactor: Redactor;
  readonly log: (line: string) => void;
  /** Told of upstream outcomes and refusals, when the relay exposes `/metrics`. */
  readonly metrics?: CacheMetrics;
}

/** Served without asking anyone: younger than one interval. */
export function isFresh(answer: SharedAnswer | null, nowMs: number, intervalMs: number): answer is SharedAnswer {
  return answer !== null && nowMs - answer.fetchedAtMs < intervalMs;
}

/** Still shown while the service fails: younger than `maxStale`. */
export function isServable(answer: SharedAnswer | null, nowMs: number, maxStaleMs: number): answer is SharedAnswer {
  return answer !== null && nowMs - answer.fetchedAtMs < maxStaleMs;
}

const NOTHING_YET: SharedWebsiteState = { answer: null, failures: 0, nextAttemptAtMs: Number.NEGATIVE_INFINITY, failure: null };
/** How often an instance looks at the store while another one holds the claim. */
const LOOK_PERIOD_MS = rules.storePollMs;
/** How soon an instance asks for the claim again after a wait on it brought nothing: browsers are told so meanwhile. */
const CLAIM_RETRY_MS = rules.claimRetryMs;
/** How soon the store is tried again after it failed. */
const STORE_RETRY_MS = rules.storeRetryMs;
/**
 * A claim outlives the upstream request it covers by this much, and no more: the holder's store
 * round trips (a read, the budget, the write, each cut off after half a second by the Redis
 * store) fit in it twice, so a slow store cannot let the claim lapse before the answer is written.
 */
const CLAIM_SLACK_MS = rules.claimSlackMs;
/**
 * Browsers wait on another instance's upstream request this much longer than the request may
 * take: with the default 5 s upstream timeout, 6 s, well under the widget's own 10 s.
 */
const CLAIM_WAIT_SLACK_MS = rules.claimWaitSlackMs;
/** A browser's whole wait: longer than the wait on a claim, so that one ends first and says why. */
const BROWSER_WAIT_SLACK_MS = rules.browserWaitSlackMs;

/** What a wait on another instance's claim came to. */
type ClaimWait = 'claimed' | 'news' | 'gave-up';

/**
 * One website as this instance serves it: a local copy of the fleet's state, refreshed from the
 * shared store when it is due, so a fresh answer costs no I/O at all. When the answer is due, one
 * instance of the fleet claims the right to ask upstream, within the fleet's hourly budget, and
 * writes the result to the store; the others (and every browser of this instance meanwhile) wait
 * for it, boundedly. Without a store the instance serves what it has, and asks upstream on its
 * own only within `storeDownBudget`.
 *
 * Scheduling reads in two places: the gate (gate.ts) says when this instance may next ask
 * upstream and why not sooner; `#lookAtStoreAtMs` says when it next reads the store, never later
 * than an interval away, so whatever happened to the store (a key deleted, garbage removed) is
 * seen within one interval.
 */
export class WebsiteCache {
  readonly #parts: WebsiteCacheParts;
  #state: SharedWebsiteState = NOTHING_YET;
  readonly #gate = new Gate();
  #syncing: Promise<void> | undefined;
  #lookAtStoreAtMs = Number.NEGATIVE_INFINITY;
  #budgetSpentReported = false;
  /** Problems with what the store returned, each logged once per website. */
  readonly #loggedOnce = new Set<string>();

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
    if (!isFresh(this.#state.answer, nowMs, this.#intervalMs) && nowMs >= this.#lookAtStoreAtMs) {
      this.#syncing ??= this.#sync().finally(() => {
        this.#syncing = undefined;
      });
    }
    if (this.#syncing) await this.#withinBrowserWait(this.#syncing);
    return this.#outcome(this.#parts.now());
  }

  /**
   * A browser waits for the store and the service at most the upstream timeout and 1.5 s (6.5 s
   * by default, under the widget's own 10 s); the work goes on without it and serves the next ones.
   */
  async #withinBrowserWait(syncing: Promise<void>): Promise<void> {
    let cancel: Cancel = () => {};
    const waited = new Promise<void>((resolve) => {
      cancel = this.#parts.timers.after(this.#parts.upstreamTimeoutMs + BROWSER_WAIT_SLACK_MS, resolve);
    });
    try {
      await Promise.race([syncing, waited]);
    } finally {
      cancel();
    }
  }

  /** The answer, when it is fresh: served without any I/O or promise (the relay's hot path). */
  freshAnswer(nowMs: number): WebsiteAnswer | undefined {
    const { answer } = this.#state;
    return isFresh(answer, nowMs, this.#intervalMs) ? { kind: 'report', answer } : undefined;
  }

  async #sync(): Promise<void> {
    const { store, website, holder, now } = this.#parts;
    const id = website.id;
    this.#parts.metrics?.websiteServed(id);
    try {
      this.#adopt(await stored(() => store.read(id)));
      this.#storeAnswers();
      // A fresh answer ends any wait on another instance's claim.
      if (isFresh(this.#state.answer, now(), this.#intervalMs)) this.#gate.open('claim');
      if (!this.#isDue(now())) return;
      if (!(await this.#claim())) {
        // Waited once already and nothing came: browsers hear so at once until the claim ends.
        if (this.#gate.isClosed('claim')) {
          this.#gate.close('claim', now() + CLAIM_RETRY_MS);
          return;
        }
        if ((await this.#awaitOtherInstance()) !== 'claimed') return;
      }
      this.#gate.open('claim');
      try {
        // Another instance may have finished between our read and our claim.
        this.#adopt(await stored(() => store.read(id)));
        if (!this.#isDue(now())) return;
        const budget = readBudgetDecision(await stored(() => store.takeBudget(now(), this.#parts.config.hourlyBudget)), now());
        if (budget === null) throw new StoreFailure('the store answered the budget with something else than a decision');
        if (!budget.taken) {
          this.#parts.metrics?.budgetRefused('fleet');
          this.#budgetSpent(budget.nextRoomAtMs);
          // Told through the store, so no instance waits on this claim or asks before there is room.
          this.#state = { ...this.#state, nextAttemptAtMs: Math.max(this.#state.nextAttemptAtMs, budget.nextRoomAtMs) };
          await stored(() => store.write(id, this.#state, this.#keepMs()));
          return;
        }
        this.#gate.open('budget');
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
    } finally {
      this.#scheduleNextLook();
    }
  }

  /** Nothing fresh, and the gate is open. */
  #isDue(nowMs: number): boolean {
    return !isFresh(this.#state.answer, nowMs, this.#intervalMs) && this.#gate.isOpen(nowMs);
  }

  /** The store again when the gate opens or the answer stops being fresh, and never later than an interval from now. */
  #scheduleNextLook(): void {
    const nowMs = this.#parts.now();
    const { answer } = this.#state;
    const freshUntilMs = answer ? answer.fetchedAtMs + this.#intervalMs : nowMs;
    const opensAtMs = this.#gate.opensAtMs() ?? Number.NEGATIVE_INFINITY;
    this.#lookAtStoreAtMs = Math.min(Math.max(opensAtMs, freshUntilMs), nowMs + this.#intervalMs);
  }

  #claim(): Promise<boolean> {
    const { store, website, holder, upstreamTimeoutMs } = this.#parts;
    return stored(() => store.claim(website.id, holder, upstreamTimeoutMs + CLAIM_SLACK_MS));
  }

  /**
   * Another instance holds the claim: its result reaches the store within the claim's life. Each
   * look reads the store (a state the holder wrote is news) and asks for the claim again (a holder
   * that died or a claim someone removed lets this instance ask at once). The wait is bounded
   * twice: by the clock, and by a number of looks, so it ends even when the injected clock stands still.
   */
  async #awaitOtherInstance(): Promise<ClaimWait> {
    const { store, website, now, timers, upstreamTimeoutMs } = this.#parts;
    // Compared by value: every read from a shared store is a new object.
    const { answer, nextAttemptAtMs } = this.#state;
    const boundMs = upstreamTimeoutMs + CLAIM_WAIT_SLACK_MS;
    const giveUpAtMs = now() + boundMs;
    for (let looks = Math.ceil(boundMs / LOOK_PERIOD_MS); looks > 0 && now() < giveUpAtMs; looks -= 1) {
      await new Promise<void>((resolve) => timers.after(LOOK_PERIOD_MS, resolve));
      this.#adopt(await stored(() => store.read(website.id)));
      // News is a state the holder wrote; a state that expired meanwhile is none.
      const written = this.#state !== NOTHING_YET;
      if (written && (this.#state.answer?.fetchedAtMs !== answer?.fetchedAtMs || this.#state.nextAttemptAtMs !== nextAttemptAtMs)) {
        this.#gate.open('claim');
        return 'news';
      }
      if (await this.#claim()) return 'claimed';
    }
    this.#gate.close('claim', now() + CLAIM_RETRY_MS);
    this.#logOnce('claim', `another instance held the claim for more than ${seconds(boundMs)} s without an answer; browsers are told so`);
    return 'gave-up';
  }

  /**
   * Takes the fleet's state, read and bounded by `readWebsiteState`, unless this instance holds a
   * newer answer (got while the store was down). Nothing usable in the store means nothing here
   * either: a copy the store no longer holds (deleted, refused) is not served on.
   */
  #adopt(raw: unknown): void {
    const nowMs = this.#parts.now();
    const reading = readWebsiteState(raw, { websiteId: this.#parts.website.id, nowMs, intervalMs: this.#intervalMs });
    if (reading.problem === 'from-the-future') {
      this.#logOnce('future', 'the store held an answer fetched in the future (an instance with a wrong clock?); refused and asked again');
    } else if (reading.problem === 'not-a-state') {
      this.#logOnce('garbage', 'the store held something that is not a relay state; treated as empty (the next answer replaces it)');
    }
    const shared = reading.state;
    const mine = this.#state.answer;
    if (shared === null) this.#state = NOTHING_YET;
    else if (mine && (!shared.answer || shared.answer.fetchedAtMs < mine.fetchedAtMs)) this.#state = { ...shared, answer: mine };
    else this.#state = shared;
    this.#gate.close('back-off', this.#state.nextAttemptAtMs);
  }

  /** How long the store keeps the state: as long as its answer may be served, and past its back-off. */
  #keepMs(): number {
    const { answer, nextAttemptAtMs } = this.#state;
    const nowMs = this.#parts.now();
    const servedUntil = answer ? answer.fetchedAtMs + this.#maxStaleMs : nowMs;
    return Math.max(servedUntil, nextAttemptAtMs, nowMs) - nowMs + this.#intervalMs;
  }

  async #askUpstream(): Promise<void> {
    const { website, config, fetch, now, timers, random, redactor, upstreamTimeoutMs } = this.#parts;
    // The website's source: the contract's service at `upstream`, or the one its config names.
    const request = { upstream: config.upstream, website, fetch, now, timeoutMs: upstreamTimeoutMs, timers, redactor };
    const result = await fetchWebsiteReport(request);
    this.#parts.metrics?.upstreamAnswered('report' in result ? 'report' : result.failure.kind);
    const nowMs = now();
    const previous = this.#state;
    if ('report' in result) {
      const body = JSON.stringify(result.report);
      const answer = { body, etag: await etagFor(body), fetchedAtMs: nowMs };
      this.#setState({ answer, failures: 0, nextAttemptAtMs: nowMs + this.#intervalMs, failure: null });
      if (previous.failures > 0) this.#say(`the analytics service answers again, after ${previous.failures} failed request(s)`);
      return;
    }
    const failures = previous.failures + 1;
    const { kind, status, reason, said, retryAfterMs } = result.failure;
    // The widget's policy: never sooner than the interval, exponential with a cap, 429s honoured.
    const wait = retryDelay({ kind, retryAfterMs }, failures, this.#intervalMs, random());
    this.#setState({ ...previous, failures, nextAttemptAtMs: nowMs + wait, failure: { kind, status, reason } });
    const { answer } = previous;
    const fallback = isServable(answer, nowMs, this.#maxStaleMs)
      ? `serving the answer from ${seconds(nowMs - answer.fetchedAtMs)} s ago`
      : 'no answer to fall back on';
    this.#say(
      `the analytics service ${reason}${said === null ? '' : `; it said "${said}"`}; ${fallback}; ` +
        `next attempt in ${seconds(wait)} s (failure ${failures} in a row)`,
    );
  }

  #setState(state: SharedWebsiteState): void {
    this.#state = state;
    this.#gate.close('back-off', state.nextAttemptAtMs);
  }

  /**
   * The store failed (unreachable, timed out, answered garbage). This instance knows neither the
   * others' answers nor what they spent: it serves its own copy until maxStale, and asks upstream
   * alone only within its `storeDownBudget` (none by default, so the fleet can never overspend).
   */
  async #withoutStore(error: unknown): Promise<void> {
    const { now, storeDownBudget } = this.#parts;
    const nowMs = now();
    if (!this.#gate.isClosed('store-down')) {
      const cause = error instanceof Error ? error.message : String(error);
      this.#say(
        `the shared store failed (${cause}); serving this instance's last answer up to maxStale` +
          (storeDownBudget.limit > 0 ? `, and asking upstream alone at most ${storeDownBudget.limit} times an hour` : ''),
      );
    }
    this.#gate.close('store-down', nowMs + STORE_RETRY_MS);
    this.#gate.open('claim');
    if (isFresh(this.#state.answer, nowMs, this.#intervalMs) || nowMs < this.#state.nextAttemptAtMs) return;
    if (!storeDownBudget.tryTake(nowMs)) {
      this.#parts.metrics?.budgetRefused('store-down');
      return;
    }
    await this.#askUpstream();
  }

  #storeAnswers(): void {
    if (!this.#gate.isClosed('store-down')) return;
    this.#gate.open('store-down');
    this.#say('the shared store answers again');
  }

  #budgetSpent(roomAtMs: number): void {
    this.#gate.close('budget', roomAtMs);
    if (this.#budgetSpentReported) return;
    this.#budgetSpentReported = true;
    const nowMs = this.#parts.now();
    this.#say(
      `hourly budget of ${this.#parts.config.hourlyBudget} upstream requests spent; no request to the analytics service ` +
        `for ${seconds(roomAtMs - nowMs)} s. Raise interval, or hourlyBudget if the plan allows.`,
    );
  }

  #outcome(nowMs: number): WebsiteAnswer {
    const { answer } = this.#state;
    if (isServable(answer, nowMs, this.#maxStaleMs)) return { kind: 'report', answer };
    const opensAtMs = this.#gate.opensAtMs() ?? nowMs;
    const retryAtMs = Math.min(Math.max(nowMs, opensAtMs), nowMs + maxWaitMs(this.#intervalMs));
    return unavailableAnswer(this.#unavailability(nowMs), { nowMs, retryAtMs, maxStale: this.#parts.config.maxStale });
  }

  /** Why there is no answer to give: by what holds the gate, once the browser's own wait and the service's failure are told. */
  #unavailability(nowMs: number): Unavailability {
    if (this.#syncing) return { cause: 'still-waiting' };
    if (this.#gate.isClosedAt('claim', nowMs)) return { cause: 'other-instance' };
    const { failure } = this.#state;
    if (failure) return { cause: 'service-failed', failure };
    // Down until it answers again, even once the time to look again has come.
    if (this.#gate.isClosed('store-down')) return { cause: 'store-down' };
    switch (this.#gate.holding(nowMs)) {
      // A next attempt with no failure behind it is a spent budget, this instance's or another's through the store.
      case 'budget':
      case 'back-off':
        return { cause: 'budget-spent', hourlyBudget: this.#parts.config.hourlyBudget };
      default:
        return { cause: 'no-answer-yet' };
    }
  }

  /** Once per website and kind of problem: a neighbour writing garbage every second must not fill the log. */
  #logOnce(problem: string, text: string): void {
    if (this.#loggedOnce.has(problem)) return;
    this.#loggedOnce.add(problem);
    this.#say(text);
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
