import type { ReactiveController, ReactiveControllerHost } from '@lit/reactive-element';
import { reportImpression } from './analytics.js';
import { observeHalfVisible } from './half-visible.js';
import type { LiveVisitors } from './live-visitors.js';
import { environment } from './realtime/environment.js';

/** How long the element must stay at least half visible before it counts as seen. */
export const IMPRESSION_DELAY_MS = 1000;

/**
 * Calls `seen` at most once in the element's life (a page view: moving it in the DOM does not
 * start over), when it has been at least half visible for one second, on a shown page, while
 * `showing()` holds: it shows a count, or would if it were not held out. Re-checked at every
 * update of the host, so a count that goes away stops the clock.
 */
export class ImpressionWatch implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  readonly #showing: () => boolean;
  readonly #seen: () => void;
  #halfVisible = false;
  #done = false;
  #timer: unknown = null;
  #stopWatching: Array<() => void> = [];

  constructor(host: ReactiveControllerHost & HTMLElement, showing: () => boolean, seen: () => void) {
    this.#host = host;
    this.#showing = showing;
    this.#seen = seen;
    host.addController(this);
  }

  hostConnected(): void {
    if (this.#done) return;
    const env = environment();
    this.#stopWatching = [
      (env.onHalfVisible ?? observeHalfVisible)(this.#host, (halfVisible) => {
        this.#halfVisible = halfVisible;
        this.hostUpdated();
      }),
      env.onVisibilityChange(() => this.hostUpdated()),
    ];
  }

  hostUpdated(): void {
    const env = environment();
    const counting = !this.#done && this.#halfVisible && env.isVisible() && this.#host.isConnected && this.#showing();
    if (!counting) this.#stopClock();
    else
      this.#timer ??= env.setTimeout(() => {
        this.#timer = null;
        this.#done = true;
        this.hostDisconnected();
        this.#seen();
      }, IMPRESSION_DELAY_MS);
  }

  hostDisconnected(): void {
    for (const stop of this.#stopWatching) stop();
    this.#stopWatching = [];
    this.#halfVisible = false;
    this.#stopClock();
  }

  #stopClock(): void {
    environment().clearTimeout(this.#timer);
    this.#timer = null;
  }
}

/** The elements watched: one watch in an element's life, however often it shows a count. */
const watched = new WeakSet<HTMLElement>();

/**
 * Started by the element once it shows a count (src/experiments-on-demand.ts): watches `host`, and when it is seen, announces its count, website and variant as its
 * event and to dataLayer. The report's website is the element's, trimmed: the client accepts no other.
 */
export function watchImpressions(host: LiveVisitors, showing: () => boolean): void {
  if (watched.has(host)) return;
  watched.add(host);
  new ImpressionWatch(host, showing, () =>
    reportImpression(host, { count: host.count!, websiteId: host.websiteId!.trim(), variant: host.variant }),
  );
}
