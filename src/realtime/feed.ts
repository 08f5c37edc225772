import { retryDelay } from './backoff.js';
import { fetchRealtimeReport } from './client.js';
import { type Environment, environment } from './environment.js';
import { RealtimeError, isConfigurationError } from './errors.js';
import { exclusively } from './lock.js';
import type { RealtimeReport } from './report.js';
import { EMPTY_RECORD, type FeedFailure, type FeedRecord, FeedStore } from './storage.js';

/** Which feed: elements that agree on all three share one. */
export interface FeedKey {
  apiBase: string;
  websiteId: string;
  token?: string | undefined;
}

/** What subscribers see. A failure never erases the last good report: they sit side by side. */
export interface FeedSnapshot {
  report: RealtimeReport | null;
  /** Device time at which `report` was fetched (here or in another tab). */
  fetchedAt: number | null;
  /** The latest failure since the last good report, or the configuration error that stopped the feed. */
  failure: FeedFailure | null;
  /** Some answer is in: a report fresh enough not to ask again, or a request that ended either way. */
  settled: boolean;
  /** A configuration error (401, 404, 400) stopped polling until `refresh()` or a new configuration. */
  stopped: boolean;
}

export type FeedListener = (snapshot: FeedSnapshot) => void;

/** A device clock that jumped back makes a record look fetched in the future: distrust it past this. */
const CLOCK_SKEW_TOLERANCE_MS = 60_000;

/**
 * One website's live count for every element of the page that shows it: started by its first
 * subscriber, stopped by its last, asking the service at most once per interval (across tabs too,
 * through shared storage and a lock), never while the page is hidden or offline.
 */
export class VisitorFeed {
  readonly #key: FeedKey;
  readonly #env: Environment;
  readonly #store: FeedStore;
  readonly #listeners = new Map<FeedListener, number>();
  readonly #onStop: () => void;
  #record: FeedRecord = EMPTY_RECORD;
  #fatal: FeedFailure | null = null;
  #warned = false;
  #settled = false;
  #online = true;
  #running = false;
  #timer: unknown = null;
  #inFlight: AbortController | null = null;
  #unlisten: Array<() => void> = [];
  #snapshot: FeedSnapshot | null = null;

  constructor(key: FeedKey, env: Environment, onStop: () => void = () => {}) {
    this.#key = key;
    this.#env = env;
    this.#store = new FeedStore(env, key.apiBase, key.websiteId);
    this.#onStop = onStop;
  }

  get snapshot(): FeedSnapshot {
    this.#snapshot ??= {
      report: this.#record.report,
      fetchedAt: this.#record.fetchedAt,
      failure: this.#fatal ?? this.#record.failure,
      settled: this.#settled || this.#fatal !== null,
      stopped: this.#fatal !== null,
    };
    return this.#snapshot;
  }

  get isRunning(): boolean {
    return this.#running;
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
      else queueMicrotask(() => this.#listeners.size === 0 && this.#running && this.#stop());
    };
  }

  /** Asks the service now (unless a request is under way), also after a configuration error. */
  refresh(): void {
    this.#fatal = null;
    this.#changed();
    void this.#poll(true);
  }

  #start(): void {
    this.#running = true;
    this.#record = this.#store.read() ?? EMPTY_RECORD;
    this.#settled = this.#dueAt() > this.#env.now();
    this.#snapshot = null;
    this.#unlisten = [
      this.#env.onVisibilityChange(() => this.#schedule()),
      this.#env.onConnectivityChange((online) => {
        this.#online = online;
        this.#schedule();
      }),
      this.#env.onStorage((key) => {
        if (key === this.#store.key || key === null) this.#adoptStored();
      }),
    ];
    this.#schedule();
  }

  #stop(): void {
    this.#running = false;
    this.#clearTimer();
    this.#inFlight?.abort();
    this.#inFlight = null;
    for (const unlisten of this.#unlisten) unlisten();
    this.#unlisten = [];
    this.#onStop();
  }

  /** When the next request is due, by the device clock. */
  #dueAt(): number {
    const { fetchedAt, retryAt } = this.#record;
    const now = this.#env.now();
    if (retryAt !== null) return retryAt > now + Math.max(MAX_PLAUSIBLE_WAIT_MS, 2 * this.intervalMs) ? now : retryAt;
    if (fetchedAt === null || fetchedAt > now + CLOCK_SKEW_TOLERANCE_MS) return now;
    return fetchedAt + this.intervalMs;
  }

  #canAsk(): boolean {
    return this.#online && this.#env.isVisible();
  }

  #schedule(): void {
    this.#clearTimer();
    if (!this.isRunning || this.#fatal || this.#inFlight || !this.#canAsk()) return;
    const delay = Math.max(0, this.#dueAt() - this.#env.now());
    this.#timer = this.#env.setTimeout(() => {
      this.#timer = null;
      void this.#poll(false);
    }, delay);
  }

  #clearTimer(): void {
    if (this.#timer !== null) this.#env.clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #poll(force: boolean): Promise<void> {
    if (this.#inFlight || !this.isRunning) return;
    this.#clearTimer();
    const request = new AbortController();
    this.#inFlight = request;
    try {
      await exclusively(this.#env, this.#store.key, request.signal, async () => {
        // Another tab may have asked while we waited for the lock: then its answer is ours.
        this.#adoptStored();
        if (!force && this.#dueAt() > this.#env.now()) return;
        await this.#ask(request.signal);
      });
    } catch (error) {
      // Only our own abort (feed stopped) lands here; anything else is a bug worth seeing.
      if (!request.signal.aborted) throw error;
    } finally {
      if (this.#inFlight === request) this.#inFlight = null;
      if (!request.signal.aborted) {
        this.#settled = true;
        this.#changed();
        this.#schedule();
      }
    }
  }

  async #ask(signal: AbortSignal): Promise<void> {
    const { apiBase, websiteId, token } = this.#key;
    try {
      const report = await fetchRealtimeReport({ apiBase, websiteId, token, signal, env: this.#env });
      if (signal.aborted) return;
      this.#save({ report, fetchedAt: this.#env.now(), retryAt: null, failures: 0, failure: null });
    } catch (error) {
      if (signal.aborted) return;
      this.#fail(
        error instanceof RealtimeError
          ? error
          : new RealtimeError({ kind: 'network', message: `The request failed: ${String(error)}` }),
      );
    }
  }

  #fail(error: RealtimeError): void {
    const failure: FeedFailure = { kind: error.kind, status: error.status, message: error.message };
    if (isConfigurationError(error.kind)) {
      // Local to this page's configuration (another tab may hold the right token): not persisted.
      this.#fatal = failure;
      if (!this.#warned) this.#env.warn(`<live-visitors> stopped asking: ${error.message}`);
      this.#warned = true;
      return;
    }
    const failures = this.#record.failures + 1;
    const wait = retryDelay(error, failures, this.intervalMs, this.#env.random());
    this.#save({ ...this.#record, failures, retryAt: this.#env.now() + wait, failure });
  }

  #save(record: FeedRecord): void {
    this.#record = record;
    this.#store.write(record);
  }

  /** Takes what another tab wrote, when it is at least as new as ours. */
  #adoptStored(): void {
    const stored = this.#store.read();
    if (!stored || stored === this.#record) return;
    if ((stored.fetchedAt ?? -Infinity) < (this.#record.fetchedAt ?? -Infinity)) return;
    const newer = stored.fetchedAt !== this.#record.fetchedAt || stored.retryAt !== this.#record.retryAt;
    this.#record = stored;
    if (!newer) return;
    this.#settled = true;
    this.#changed();
    this.#schedule();
  }

  #changed(): void {
    this.#snapshot = null;
    const snapshot = this.snapshot;
    for (const listener of [...this.#listeners.keys()]) listener(snapshot);
  }
}

/** A retry time further ahead than any wait we set (or two intervals) means the clock jumped back. */
const MAX_PLAUSIBLE_WAIT_MS = 2 * 60 * 60_000;

const feeds = new Map<string, VisitorFeed>();

function feedId({ apiBase, websiteId, token = '' }: FeedKey): string {
  return JSON.stringify([apiBase, websiteId, token]);
}

/** The page's one feed for this key, created on first use and forgotten when it stops. */
export function feedFor(key: FeedKey): VisitorFeed {
  const id = feedId(key);
  let feed = feeds.get(id);
  if (!feed) {
    const created = new VisitorFeed(key, environment(), () => {
      if (feeds.get(id) === created) feeds.delete(id);
    });
    feeds.set(id, created);
    feed = created;
  }
  return feed;
}

/** How many feeds are alive on this page (for leak tests and diagnostics). */
export function activeFeedCount(): number {
  return feeds.size;
}
