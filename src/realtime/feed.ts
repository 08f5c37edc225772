import { retryDelay } from '../contract/backoff.js';
import { isConfigurationError } from '../contract/errors.js';
import type { Cancel } from '../contract/timers.js';
import { DEV_MODE } from '../dev-mode.js';
import { fetchRealtimeAnswer, REQUEST_TIMEOUT_MS } from './client.js';
import { type Environment, environment } from './environment.js';
import { RealtimeError } from './errors.js';
import { exclusively } from './lock.js';
import {
  CLOCK_SKEW_TOLERANCE_MS,
  CONFIGURATION_PAUSE_MS,
  EMPTY_RECORD,
  type FeedFailure,
  type FeedRecord,
  readRecord,
  recordKey,
  writeRecord,
} from './storage.js';

/** Which feed: elements that agree on all three share one. */
export interface FeedKey {
  apiBase: string;
  websiteId: string;
  token?: string | undefined;
}

/**
 * What subscribers see: the shared record (`fetchedAt` and `attemptedAt` are device times, here or
 * in another tab). A failure never erases the last good report: they sit side by side.
 */
export interface FeedSnapshot extends Readonly<FeedRecord> {
  /** The latest failure since the last good report, or the configuration error that stopped the feed. */
  failure: FeedFailure | null;
  /** Some answer is in: a report fresh enough not to ask again, or a request that ended either way. */
  settled: boolean;
  /** A configuration error (401, 404, 400) stopped polling until `refresh()` or a new configuration. */
  stopped: boolean;
}

export type FeedListener = (snapshot: FeedSnapshot) => void;

export { CLOCK_SKEW_TOLERANCE_MS } from './storage.js';

/** A retry time further ahead than any wait we set (or two intervals) means the clock jumped back. */
const MAX_PLAUSIBLE_WAIT_MS = 2 * 60 * 60_000;
/**
 * Another tab was asking when we meant to: its answer normally arrives as a storage event well
 * before this; if its page closed mid-request, we ask ourselves after this long.
 */
const OTHER_TAB_GRACE_MS = REQUEST_TIMEOUT_MS + 5_000;

/**
 * One website's live count for every element of the page that shows it: started by its first
 * subscriber, stopped by its last, asking the service at most once per interval (across tabs too,
 * through shared storage and a lock), never while the page is hidden or offline.
 */
export class VisitorFeed {
  readonly #key: FeedKey;
  readonly #env: Environment;
  /** Where the record is shared with the other tabs. */
  readonly #storageKey: string;
  readonly #listeners = new Map<FeedListener, number>();
  /** Called when the last subscriber has left (`feedFor` then forgets the feed). */
  readonly #onStop: () => void;
  #record: FeedRecord = EMPTY_RECORD;
  #fatal: FeedFailure | null = null;
  #warned = false;
  #settled = false;
  #online = true;
  #running = false;
  /** Cancels the timer of the next poll, if one is set. */
  #cancelPoll: Cancel | null = null;
  #inFlight: AbortController | null = null;
  /** Not before this device time: another tab was asking (see OTHER_TAB_GRACE_MS). */
  #quietUntil = 0;
  #unlisten: Array<() => void> = [];
  #snapshot: FeedSnapshot | null = null;

  constructor(key: FeedKey, env: Environment, onStop: () => void) {
    this.#key = key;
    this.#env = env;
    this.#storageKey = recordKey(key.apiBase, key.websiteId);
    this.#onStop = onStop;
  }

  get snapshot(): FeedSnapshot {
    this.#snapshot ??= {
      ...this.#record,
      failure: this.#fatal ?? this.#record.failure,
      settled: this.#settled || this.#fatal !== null,
      stopped: this.#fatal !== null,
    };
    return this.#snapshot;
  }

  /** The shortest interval any subscriber asked for. */
  get intervalMs(): number {
    return Math.min(...this.#listeners.values());
  }

  /**
   * Calls `listener` now with the current snapshot and again on every change; returns the
   * unsubscribe function.
   */
  subscribe(listener: FeedListener, intervalMs: number): () => void {
    this.#listeners.set(listener, intervalMs);
    if (this.#running) this.#schedule();
    else this.#start();
    listener(this.snapshot);
    return () => {
      if (!this.#listeners.delete(listener)) return;
      if (this.#listeners.size > 0) this.#schedule();
      // Wait a microtask: an element moved in the DOM disconnects and reconnects at once,
      // and should not restart the feed (or abort its request) in between.
      else queueMicrotask(() => this.#stopUnlessFollowed());
    };
  }

  /**
   * Asks the service now, also after a configuration error; unless a request is under way, the
   * page is hidden or offline, or the service asked us to wait (429).
   */
  refresh(): void {
    this.#fatal = null;
    this.#changed();
    const { failure, retryAt } = this.#record;
    const rateLimited = failure?.kind === 'rate-limited' && retryAt !== null && retryAt > this.#env.now();
    if (this.#canAsk() && !rateLimited) void this.#poll(true);
    else this.#schedule();
  }

  #start(): void {
    this.#running = true;
    this.#record = this.#readStored() ?? EMPTY_RECORD;
    const { failure, retryAt } = this.#record;
    // An earlier page load met a configuration error: stay stopped until its pause is over.
    if (failure && isConfigurationError(failure.kind) && retryAt !== null && retryAt > this.#env.now()) this.#halt(failure);
    this.#settled = this.#dueAt() > this.#env.now();
    this.#snapshot = null;
    this.#unlisten = [
      this.#env.onVisibilityChange(() => this.#schedule()),
      this.#env.onConnectivityChange((online) => {
        this.#online = online;
        if (online) this.#forgiveNetworkBackoff();
        this.#schedule();
      }),
      this.#env.onStorage((key) => {
        if (key === this.#storageKey || key === null) this.#adoptStored();
      }),
    ];
    this.#schedule();
  }

  /** Stops when, a microtask after its last subscriber left, none has come back. */
  #stopUnlessFollowed(): void {
    if (this.#listeners.size === 0 && this.#running) this.#stop();
  }

  #stop(): void {
    this.#running = false;
    this.#cancelPoll?.();
    this.#inFlight?.abort();
    this.#inFlight = null;
    // No need to empty the list: a stop only ever follows a start, which makes a new one.
    for (const unlisten of this.#unlisten) unlisten();
    this.#onStop();
  }

  /** When the next request is due, by the device clock: the next attempt, unless another tab is asking. */
  #dueAt(): number {
    return Math.max(this.#nextAttemptAt(), this.#quietUntil);
  }

  /**
   * An interval after the last request or, while failing, when the backoff ends; now when either
   * lies implausibly far ahead (the device clock jumped back since).
   */
  #nextAttemptAt(): number {
    const { fetchedAt, attemptedAt, retryAt } = this.#record;
    const now = this.#env.now();
    if (retryAt !== null) {
      const latestPlausible = now + Math.max(MAX_PLAUSIBLE_WAIT_MS, 2 * this.intervalMs);
      return retryAt > latestPlausible ? now : retryAt;
    }
    // Not `fetchedAt` first: a relay's answer may arrive already old, and must not make us ask again at once.
    const last = attemptedAt ?? fetchedAt;
    if (last === null || last > now + CLOCK_SKEW_TOLERANCE_MS) return now;
    return last + this.intervalMs;
  }

  #canAsk(): boolean {
    return this.#online && this.#env.isVisible();
  }

  #schedule(): void {
    this.#cancelPoll?.();
    if (!this.#running || this.#fatal || this.#inFlight || !this.#canAsk()) return;
    // Overdue is a negative delay, which counts as 0.
    this.#cancelPoll = this.#env.after(this.#dueAt() - this.#env.now(), () => void this.#poll(false));
  }

  async #poll(force: boolean): Promise<void> {
    // A timer still pending needs no clearing: it fires into this check, and the end of the poll schedules anew.
    if (this.#inFlight || !this.#running) return;
    const request = new AbortController();
    this.#inFlight = request;
    let asked = true;
    try {
      asked = await exclusively(this.#env, this.#storageKey, async () => {
        // Another tab may have asked just before us: then its answer is ours.
        this.#adoptStored();
        if (!force && (this.#dueAt() > this.#env.now() || !this.#canAsk())) return;
        await this.#ask(request.signal);
      });
    } catch (error) {
      // Our own abort (the feed stopped) is no failure; anything else must back off, never spin.
      if (!request.signal.aborted) this.#fail(asRealtimeError(error));
    } finally {
      if (this.#inFlight === request) this.#inFlight = null;
      if (!asked) this.#quietUntil = this.#env.now() + OTHER_TAB_GRACE_MS;
      if (!request.signal.aborted) {
        // Skipped for another tab: no answer yet, so nothing changes until its storage event.
        if (asked) {
          this.#settled = true;
          this.#changed();
        }
        this.#schedule();
      }
    }
  }

  async #ask(signal: AbortSignal): Promise<void> {
    try {
      const { report, ageMs, stale } = await fetchRealtimeAnswer({ ...this.#key, signal, env: this.#env });
      if (signal.aborted) return;
      const now = this.#env.now();
      // A relay's cached answer is as old as its upstream fetch: max-age counts from there. One it
      // serves past its own freshness means the service behind it fails: the count is stale.
      const failure: FeedFailure | null = stale
        ? {
            kind: 'server',
            status: null,
            message: DEV_MODE ? `${this.#key.apiBase} serves an old count: the service behind the relay fails.` : this.#key.apiBase,
          }
        : null;
      this.#save({ report, fetchedAt: now - ageMs, attemptedAt: now, retryAt: null, failures: 0, failure });
    } catch (error) {
      if (!signal.aborted) this.#fail(asRealtimeError(error));
    }
  }

  #fail(error: RealtimeError): void {
    const { kind, status, message } = error;
    const failure: FeedFailure = { kind, status, message };
    const now = this.#env.now();
    const failures = this.#record.failures + 1;
    if (isConfigurationError(kind)) {
      this.#halt(failure);
      // A 401 is about this page's token, which storage never holds: a page with the right token,
      // or this one after the fix, must not inherit it. It stops this page only, so the attempt
      // is this page's to know (subscribers announce each attempt once), and is not saved.
      if (kind === 'unauthorized') {
        this.#record = { ...this.#record, attemptedAt: now };
        return;
      }
    }
    const wait = this.#fatal ? CONFIGURATION_PAUSE_MS : retryDelay(error, failures, this.intervalMs, this.#env.random());
    this.#save({ ...this.#record, failures, attemptedAt: now, retryAt: now + wait, failure });
  }

  /** Stops asking until `refresh()`, with one warning per page, also on a page that found the error stored. */
  #halt(failure: FeedFailure): void {
    this.#fatal = failure;
    if (!this.#warned) this.#env.warn(DEV_MODE ? `stopped asking: ${failure.message}` : failure.message);
    this.#warned = true;
  }

  /**
   * Network errors often arrive before the browser's `offline` event: once it is back online,
   * the backoff they caused is moot, and the count is refreshed as soon as it is due.
   */
  #forgiveNetworkBackoff(): void {
    const { failure, attemptedAt } = this.#record;
    if (failure?.kind !== 'network' && failure?.kind !== 'timeout') return;
    // Saved, not only kept: the lock re-reads storage, and the other tabs share this network.
    this.#save({ ...this.#record, retryAt: (attemptedAt ?? 0) + this.intervalMs });
  }

  #save(record: FeedRecord): void {
    this.#record = record;
    writeRecord(this.#env, this.#storageKey, record);
  }

  #readStored(): FeedRecord | null {
    return readRecord(this.#env, this.#storageKey, this.#key.websiteId);
  }

  /** Takes what another tab wrote, when it is at least as new as ours. */
  #adoptStored(): void {
    const stored = this.#readStored();
    if (!stored) return;
    if (this.#trustedFetchTime(stored) < this.#trustedFetchTime(this.#record)) return;
    const sameReport = stored.fetchedAt === this.#record.fetchedAt;
    const newer = !sameReport || stored.retryAt !== this.#record.retryAt;
    // Keep our report object when it is the same report, so subscribers do not see it as new.
    this.#record = sameReport ? { ...stored, report: this.#record.report } : stored;
    if (!newer) return;
    this.#settled = true;
    this.#changed();
    this.#schedule();
  }

  /** A fetch time in the future (the clock moved back since) says nothing: it must not win. */
  #trustedFetchTime({ fetchedAt }: FeedRecord): number {
    return fetchedAt === null || fetchedAt > this.#env.now() + CLOCK_SKEW_TOLERANCE_MS ? -Infinity : fetchedAt;
  }

  #changed(): void {
    this.#snapshot = null;
    const snapshot = this.snapshot;
    for (const listener of [...this.#listeners.keys()]) listener(snapshot);
  }
}

function asRealtimeError(error: unknown): RealtimeError {
  return error instanceof RealtimeError
    ? error
    : new RealtimeError({ kind: 'network', message: DEV_MODE ? `Request failed: ${String(error)}` : String(error) });
}

const feeds = new Map<string, VisitorFeed>();

export function feedId({ apiBase, websiteId, token }: FeedKey): string {
  // No token is `null` here, which no token can be.
  return JSON.stringify([apiBase, websiteId, token]);
}

/** The page's one feed for this key, created on first use and forgotten when it stops. */
export function feedFor(key: FeedKey): VisitorFeed {
  const id = feedId(key);
  let feed = feeds.get(id);
  if (!feed) {
    // Forgotten for good when it stops: the elements take their feed from here each time, so no
    // one starts a stopped feed again.
    feed = new VisitorFeed(key, environment(), () => feeds.delete(id));
    feeds.set(id, feed);
  }
  return feed;
}

/** How many feeds are alive on this page (for leak tests and diagnostics). */
export function activeFeedCount(): number {
  return feeds.size;
}
