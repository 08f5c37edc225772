import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { WidgetConfig } from './config.js';
import { dispatch, type LiveVisitorsErrorDetail, type LiveVisitorsUpdateDetail } from './events.js';
import { environment } from './realtime/environment.js';
import { feedFor, type FeedSnapshot } from './realtime/feed.js';
import type { FeedFailure } from './realtime/storage.js';
import type { RealtimeReport } from './realtime/report.js';
import { UNAVAILABLE, widgetView, type WidgetView } from './view-state.js';

type Host = ReactiveControllerHost & HTMLElement;

/**
 * Connects one element to its website's shared feed: subscribes while connected, turns
 * snapshots into a view, fires the element's events, and wakes the element when its count
 * outlives max-age (on time, not at the next poll).
 */
export class VisitorsController implements ReactiveController {
  readonly #host: Host;
  #config: WidgetConfig | null = null;
  #subscription: string | null = null;
  #unsubscribe: (() => void) | null = null;
  #snapshot: FeedSnapshot | null = null;
  #configError: string | null = null;
  #expiryTimer: unknown = null;
  #announcedReport: RealtimeReport | null = null;
  #announcedFailure: FeedFailure | null = null;

  constructor(host: Host) {
    this.#host = host;
    host.addController(this);
  }

  hostConnected(): void {
    // A reconnected element gets no update of its own from Lit; ask for one so it resubscribes.
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
  configure(result: { ok: true; config: WidgetConfig } | { ok: false; message: string }): void {
    if (!this.#host.isConnected) return;
    const subscription = result.ok
      ? JSON.stringify([result.config.key.apiBase, result.config.key.websiteId, result.config.key.token ?? '', result.config.intervalMs])
      : `invalid:${result.message}`;
    this.#config = result.ok ? result.config : null;
    if (subscription === this.#subscription) return;
    this.hostDisconnected();
    this.#subscription = subscription;
    this.#snapshot = null;
    this.#announcedReport = null;
    this.#announcedFailure = null;
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
    return widgetView(this.#snapshot, environment().now(), this.#config.maxAgeMs);
  }

  refresh(): void {
    if (this.#config) feedFor(this.#config.key).refresh();
  }

  #receive(snapshot: FeedSnapshot): void {
    this.#snapshot = snapshot;
    this.#host.requestUpdate();
    const { report, failure } = snapshot;
    if (report && report !== this.#announcedReport && this.view().report === report) {
      this.#announcedReport = report;
      const detail: LiveVisitorsUpdateDetail = {
        count: report.currentVisitors,
        websiteId: report.websiteId,
        timestamp: report.timestamp,
      };
      // After the render, so listeners find the new count on the page.
      void this.#host.updateComplete.then(() => dispatch(this.#host, 'live-visitors-update', detail));
    }
    if (failure && failure !== this.#announcedFailure) {
      this.#announcedFailure = failure;
      const detail: LiveVisitorsErrorDetail = { kind: failure.kind, status: failure.status, message: failure.message };
      void this.#host.updateComplete.then(() => dispatch(this.#host, 'live-visitors-error', detail));
    }
  }

  #reportConfigError(message: string): void {
    if (message === this.#configError) return;
    this.#configError = message;
    environment().warn(`<live-visitors> shows nothing: ${message}`);
    const detail: LiveVisitorsErrorDetail = { kind: 'config', status: null, message };
    void this.#host.updateComplete.then(() => dispatch(this.#host, 'live-visitors-error', detail));
  }

  #scheduleExpiry(): void {
    this.#clearExpiry();
    const { expiresAt } = this.view();
    if (expiresAt === null || !this.#host.isConnected) return;
    const env = environment();
    this.#expiryTimer = env.setTimeout(() => {
      this.#expiryTimer = null;
      this.#host.requestUpdate();
    }, Math.max(0, expiresAt - env.now()) + 1);
  }

  #clearExpiry(): void {
    if (this.#expiryTimer !== null) environment().clearTimeout(this.#expiryTimer);
    this.#expiryTimer = null;
  }
}
