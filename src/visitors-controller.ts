import type { ReactiveController, ReactiveControllerHost } from '@lit/reactive-element';
import { type ConfigResult, resolveConfig, type WidgetAttributes, type WidgetConfig } from './config.js';
import { DEV_MODE } from './dev-mode.js';
import { dispatch, type LiveVisitorsErrorDetail, type LiveVisitorsUpdateDetail } from './events.js';
import { environment } from './realtime/environment.js';
import { type FeedSnapshot, feedFor, feedId } from './realtime/feed.js';
import { SteadyDisplay } from './steady-display.js';
import { type FeedView, feedView, UNAVAILABLE, type WidgetView } from './view-state.js';

type Host = ReactiveControllerHost & HTMLElement & WidgetAttributes;

/**
 * Connects one element to its website's shared feed. At each update it reads the host's
 * attributes into a configuration and computes the one view that the shadow DOM, `state`,
 * `count` and `updatedAt` all read. It subscribes while connected, fires the element's events
 * once per report and per failed attempt, and wakes the element when its view changes by time
 * alone (live turns stale, a count outlives max-age): on time, not at the next poll.
 */
export class VisitorsController implements ReactiveController {
  readonly #host: Host;
  /** What the element shows, as of its last update. */
  view: WidgetView = { ...UNAVAILABLE, shown: false };
  /** The configuration of the last update, unless its attributes were invalid. */
  #config?: WidgetConfig | undefined;
  /** The feed (or configuration error) the element follows; what it announced belongs to it. */
  #followed?: string;
  #unsubscribe?: (() => void) | undefined;
  // `!`: this and the fields marked so below belong to the followed feed, and `#follow` sets them
  // afresh (every update runs it first), before anything reads them.
  #snapshot!: FeedSnapshot | null;
  #expiryTimer: unknown = null;
  #announcedFetchTime!: number | null;
  #announcedFailureAt!: number | null;
  #steady!: SteadyDisplay;

  constructor(host: Host) {
    this.#host = host;
    host.addController(this);
  }

  hostConnected(): void {
    // An element moved in the DOM rejoins its feed at once, before the feed's deferred stop could
    // abort a request under way; it has announced its reports already. A first connection waits
    // for the first update, when a script that appends the element and sets its attributes is done.
    this.#subscribe();
    this.#host.requestUpdate();
  }

  hostUpdate(): void {
    this.#follow(resolveConfig(this.#host));
    const view = this.#feedViewNow();
    const count = view.report?.currentVisitors ?? null;
    // Invalid attributes show no count, so their `min` does not matter.
    this.view = { ...view, shown: this.#steady.shows(count, this.#config?.min ?? 1, environment().now()) };
  }

  /** Wakes the element when its view changes by time alone. */
  hostUpdated(): void {
    const env = environment();
    // After every render, so a changed max-age moves the switch to `unavailable` too. The handle
    // may be of a timer that already ran: clearing it again is a no-op (handles are never reused).
    env.clearTimeout(this.#expiryTimer);
    const { changesAt } = this.view;
    if (changesAt === null || !this.#host.isConnected) return;
    // Just after the change; one already past is a negative delay, which setTimeout takes as 0.
    // No cap needed: max-age is at most 7 days, well within a timer's 2^31 - 1 ms.
    this.#expiryTimer = env.setTimeout(() => this.#host.requestUpdate(), changesAt - env.now() + 1);
  }

  hostDisconnected(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    environment().clearTimeout(this.#expiryTimer);
  }

  refresh(): void {
    if (this.#config && this.#unsubscribe) feedFor(this.#config.key).refresh();
  }

  /** Points the element at a (new) configuration; keeps its subscription when nothing that matters changed. */
  #follow(result: ConfigResult): void {
    const invalid = typeof result === 'string';
    this.#config = invalid ? undefined : result;
    const followed = invalid ? `invalid:${result}` : feedId(result.key) + result.intervalMs;
    if (followed === this.#followed) return;
    this.hostDisconnected();
    this.#followed = followed;
    this.#snapshot = null;
    this.#announcedFetchTime = null;
    this.#announcedFailureAt = null;
    this.#steady = new SteadyDisplay();
    if (!invalid) this.#subscribe();
    else {
      environment().warn(DEV_MODE ? `shows nothing: ${result}` : result);
      this.#announce<LiveVisitorsErrorDetail>('live-visitors-error', { kind: 'config', status: null, message: result });
    }
  }

  #subscribe(): void {
    const config = this.#config;
    if (!config || this.#unsubscribe || !this.#host.isConnected) return;
    this.#unsubscribe = feedFor(config.key).subscribe((snapshot) => this.#receive(snapshot), config.intervalMs);
  }

  #feedViewNow(): FeedView {
    const config = this.#config;
    if (!config) return UNAVAILABLE;
    return feedView(this.#snapshot, environment().now(), config.maxAgeMs, config.intervalMs);
  }

  #receive(snapshot: FeedSnapshot): void {
    this.#snapshot = snapshot;
    this.#host.requestUpdate();
    const { report, fetchedAt, attemptedAt, failure } = snapshot;
    // A report is new when it was fetched at another time: failures and other tabs re-send the same one.
    if (report && fetchedAt !== this.#announcedFetchTime && this.#feedViewNow().report === report) {
      this.#announcedFetchTime = fetchedAt;
      this.#announce<LiveVisitorsUpdateDetail>('live-visitors-update', {
        count: report.currentVisitors,
        websiteId: report.websiteId,
        timestamp: report.timestamp,
      });
    }
    // Likewise a failure is new when it came from another attempt.
    if (failure && attemptedAt !== this.#announcedFailureAt) {
      this.#announcedFailureAt = attemptedAt;
      // A copy: a listener that changes its event's detail must not change the feed's record.
      this.#announce<LiveVisitorsErrorDetail>('live-visitors-error', { ...failure });
    }
  }

  /** After the render, so listeners find the new state on the page. */
  #announce<T>(type: string, detail: T): void {
    void this.#host.updateComplete.then(() => dispatch(this.#host, type, detail));
  }
}
