import type { ReactiveController, ReactiveControllerHost } from '@lit/reactive-element';
import { type ConfigResult, isProblem, resolveConfig, type WidgetAttributes, type WidgetConfig } from './config.js';
import { windowOf } from './contract/report.js';
import type { Cancel } from './contract/timers.js';
import { DEV_MODE } from './dev-mode.js';
import { dispatch, type LiveVisitorsErrorDetail, type LiveVisitorsUpdateDetail } from './events.js';
import { environment } from './realtime/environment.js';
import { type FeedSnapshot, feedFor, feedId } from './realtime/feed.js';
import { SteadyDisplay } from './steady-display.js';
import { type FeedView, feedView, UNAVAILABLE, type WidgetView } from './view-state.js';

type Host = ReactiveControllerHost & HTMLElement & WidgetAttributes;

/** What an element knows of the feed (or configuration error) it follows: made afresh when it follows another. */
interface Followed {
  /** Which feed at which interval, or which configuration error. */
  id: string;
  snapshot: FeedSnapshot | null;
  /** The fetch time of the last report announced. */
  announcedFetchTime: number | null;
  /** The attempt time of the last failure announced. */
  announcedFailureAt: number | null;
  steady: SteadyDisplay;
}

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
  /** The feed the element follows (from its first update on), and what it announced of it. */
  #followed: Followed | null = null;
  #unsubscribe?: (() => void) | undefined;
  /** Cancels the wake-up at the next change by time alone, if one is set. */
  #cancelWake: Cancel | null = null;

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
    const followed = this.#follow(resolveConfig(this.#host));
    const view = this.#feedViewNow(followed);
    const count = view.report?.currentVisitors ?? null;
    // Invalid attributes show no count, so their `min` does not matter.
    this.view = { ...view, shown: followed.steady.shows(count, this.#config?.min ?? 1, environment().now()) };
  }

  /** Wakes the element when its view changes by time alone. */
  hostUpdated(): void {
    // After every render, so a changed max-age moves the switch to `unavailable` too.
    this.#cancelWake?.();
    const { changesAt } = this.view;
    if (changesAt === null || !this.#host.isConnected) return;
    const env = environment();
    // Just after the change; one already past is a negative delay, which counts as 0.
    // No cap needed: max-age is at most 7 days, well within a timer's 2^31 - 1 ms.
    this.#cancelWake = env.after(changesAt - env.now() + 1, () => this.#host.requestUpdate());
  }

  hostDisconnected(): void {
    this.#unfollow();
  }

  refresh(): void {
    if (this.#config && this.#unsubscribe) feedFor(this.#config.key).refresh();
  }

  /** Points the element at a (new) configuration; keeps its subscription when nothing that matters changed. */
  #follow(result: ConfigResult): Followed {
    const invalid = isProblem(result);
    this.#config = invalid ? undefined : result;
    // The feed and the interval the element asks it for: a change of either follows anew.
    const id = invalid ? `invalid:${result}` : `${feedId(result.key)} every ${result.intervalMs} ms`;
    if (this.#followed?.id === id) return this.#followed;
    this.#unfollow();
    const followed: Followed = { id, snapshot: null, announcedFetchTime: null, announcedFailureAt: null, steady: new SteadyDisplay() };
    this.#followed = followed;
    if (!invalid) this.#subscribe();
    else {
      environment().warn(DEV_MODE ? `shows nothing: ${result}` : result);
      this.#announce<LiveVisitorsErrorDetail>('live-visitors-error', { kind: 'config', status: null, message: result });
    }
    return followed;
  }

  /** Leaves the feed and its wake-up (a disconnected element, or one about to follow another). */
  #unfollow(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#cancelWake?.();
  }

  #subscribe(): void {
    const config = this.#config;
    const followed = this.#followed;
    if (!config || !followed || this.#unsubscribe || !this.#host.isConnected) return;
    this.#unsubscribe = feedFor(config.key).subscribe((snapshot) => this.#receive(followed, snapshot), config.intervalMs);
  }

  #feedViewNow({ snapshot }: Followed): FeedView {
    const config = this.#config;
    if (!config) return UNAVAILABLE;
    return feedView(snapshot, environment().now(), config.maxAgeMs, config.intervalMs);
  }

  #receive(followed: Followed, snapshot: FeedSnapshot): void {
    followed.snapshot = snapshot;
    this.#host.requestUpdate();
    const { report, fetchedAt, attemptedAt, failure } = snapshot;
    // A report is new when it was fetched at another time: failures and other tabs re-send the same one.
    if (report && fetchedAt !== followed.announcedFetchTime && this.#feedViewNow(followed).report === report) {
      followed.announcedFetchTime = fetchedAt;
      this.#announce<LiveVisitorsUpdateDetail>('live-visitors-update', {
        count: report.currentVisitors,
        websiteId: report.websiteId,
        timestamp: report.timestamp,
        windowMinutes: windowOf(report),
      });
    }
    // Likewise a failure is new when it came from another attempt.
    if (failure && attemptedAt !== followed.announcedFailureAt) {
      followed.announcedFailureAt = attemptedAt;
      // A copy: a listener that changes its event's detail must not change the feed's record.
      this.#announce<LiveVisitorsErrorDetail>('live-visitors-error', { ...failure });
    }
  }

  /** After the render, so listeners find the new state on the page. */
  #announce<T>(type: string, detail: T): void {
    void this.#host.updateComplete.then(() => dispatch(this.#host, type, detail));
  }
}
