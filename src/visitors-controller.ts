import type { ReactiveController, ReactiveControllerHost } from '@lit/reactive-element';
import type { ConfigResult, WidgetConfig } from './config.js';
import { dispatch, type LiveVisitorsErrorDetail, type LiveVisitorsUpdateDetail } from './events.js';
import { environment } from './realtime/environment.js';
import { feedFor, feedId, type FeedSnapshot } from './realtime/feed.js';
import { UNAVAILABLE, widgetView, type WidgetView } from './view-state.js';

type Host = ReactiveControllerHost & HTMLElement;

/** Timers longer than this fire at once in browsers (a signed 32-bit number of milliseconds). */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * Connects one element to its website's shared feed: subscribes while connected, turns
 * snapshots into a view, fires the element's events, and wakes the element when its view
 * changes by time alone (live turns stale, a count outlives max-age): on time, not at the next poll.
 */
export class VisitorsController implements ReactiveController {
  readonly #host: Host;
  #config: WidgetConfig | null = null;
  #lastResult: ConfigResult | null = null;
  #subscription: string | null = null;
  #unsubscribe: (() => void) | null = null;
  #snapshot: FeedSnapshot | null = null;
  #configError: string | null = null;
  #expiryTimer: unknown = null;
  #announcedFetchTime: number | null = null;
  #announcedFailureAt: number | null = null;

  constructor(host: Host) {
    this.#host = host;
    host.addController(this);
  }

  hostConnected(): void {
    // An element moved in the DOM rejoins its feed at once, before the feed's deferred stop could
    // abort a request under way. A first connection waits for the first update, when a script
    // that appends the element and then sets its attributes has finished.
    if (this.#lastResult) this.configure(this.#lastResult);
    this.#host.requestUpdate();
  }

  hostUpdated(): void {
    // After every render, so a changed max-age moves the switch to `unavailable` too.
    this.#scheduleExpiry();
  }

  hostDisconnected(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#subscription = null;
    this.#clearExpiry();
  }

  /** Points the element at a (new) configuration; a no-op when nothing that matters changed. */
  configure(result: ConfigResult): void {
    if (!this.#host.isConnected) return;
    this.#lastResult = result;
    const subscription = result.ok
      ? feedId(result.config.key) + result.config.intervalMs
      : `invalid:${result.message}`;
    this.#config = result.ok ? result.config : null;
    if (subscription === this.#subscription) return;
    this.hostDisconnected();
    this.#subscription = subscription;
    this.#snapshot = null;
    this.#announcedFetchTime = null;
    this.#announcedFailureAt = null;
    if (!result.ok) {
      this.#reportConfigError(result.message);
      return;
    }
    this.#configError = null;
    const feed = feedFor(result.config.key);
    this.#unsubscribe = feed.subscribe((snapshot) => this.#receive(snapshot), result.config.intervalMs);
  }

  /** What to show now. */
  view(): WidgetView {
    if (!this.#config) return UNAVAILABLE;
    return widgetView(this.#snapshot, environment().now(), this.#config.maxAgeMs, this.#config.intervalMs);
  }

  refresh(): void {
    if (this.#config && this.#unsubscribe) feedFor(this.#config.key).refresh();
  }

  #receive(snapshot: FeedSnapshot): void {
    this.#snapshot = snapshot;
    this.#host.requestUpdate();
    const { report, fetchedAt, attemptedAt, failure } = snapshot;
    // A report is new when it was fetched at another time: failures and other tabs re-send the same one.
    if (report && fetchedAt !== this.#announcedFetchTime && this.view().report === report) {
      this.#announcedFetchTime = fetchedAt;
      const { currentVisitors: count, websiteId, timestamp } = report;
      this.#announce<LiveVisitorsUpdateDetail>('live-visitors-update', { count, websiteId, timestamp });
    }
    // Likewise a failure is new when it came from another attempt.
    if (failure && attemptedAt !== this.#announcedFailureAt) {
      this.#announcedFailureAt = attemptedAt;
      const { kind, status, message } = failure;
      this.#announce<LiveVisitorsErrorDetail>('live-visitors-error', { kind, status, message });
    }
  }

  #reportConfigError(message: string): void {
    if (message === this.#configError) return;
    this.#configError = message;
    environment().warn(`<live-visitors> shows nothing: ${message}`);
    this.#announce<LiveVisitorsErrorDetail>('live-visitors-error', { kind: 'config', status: null, message });
  }

  /** After the render, so listeners find the new state on the page. */
  #announce<T>(type: string, detail: T): void {
    void this.#host.updateComplete.then(() => dispatch(this.#host, type, detail));
  }

  #scheduleExpiry(): void {
    this.#clearExpiry();
    const { changesAt } = this.view();
    if (changesAt === null || !this.#host.isConnected) return;
    const env = environment();
    this.#expiryTimer = env.setTimeout(() => {
      this.#expiryTimer = null;
      this.#host.requestUpdate();
    }, Math.min(MAX_TIMER_DELAY_MS, Math.max(0, changesAt - env.now()) + 1));
  }

  #clearExpiry(): void {
    if (this.#expiryTimer !== null) environment().clearTimeout(this.#expiryTimer);
    this.#expiryTimer = null;
  }
}
