import type { ReactiveController, ReactiveControllerHost } from '@lit/reactive-element';
import { reportImpression } from './analytics.js';
import type { Cancel } from './contract/timers.js';
import { observeHalfVisible } from './half-visible.js';
import { variantFor } from './holdout.js';
import { environment } from './realtime/environment.js';

/**
 * What an impression needs of the element it watches: an interface, not the element's class, so
 * this lazy file never imports the element that loads it.
 */
export interface ImpressionHost extends ReactiveControllerHost, HTMLElement {
  /** The count shown (or held out), when the element is seen. */
  readonly count: number | null;
  /** The minutes that count covers. */
  readonly windowMinutes: number | null;
  readonly websiteId: string | null;
  /** The share of browsers held out, as the element's `holdout` attribute says. */
  readonly holdout: number;
}

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
  /** Cancels the one-second clock, while it runs. */
  #cancelClock: Cancel | null = null;
  #unwatch: Array<() => void> = [];

  constructor(host: ReactiveControllerHost & HTMLElement, showing: () => boolean, seen: () => void) {
    this.#host = host;
    this.#showing = showing;
    this.#seen = seen;
    host.addController(this);
  }

  hostConnected(): void {
    if (this.#done) return;
    const env = environment();
    this.#unwatch = [
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
    else this.#cancelClock ??= env.after(IMPRESSION_DELAY_MS, () => this.#becomeSeen());
  }

  hostDisconnected(): void {
    this.#stopWatching();
  }

  /** Stops watching visibility and the clock (a disconnected or already seen element). */
  #stopWatching(): void {
    for (const unwatch of this.#unwatch) unwatch();
    this.#unwatch = [];
    this.#halfVisible = false;
    this.#stopClock();
  }

  #stopClock(): void {
    this.#cancelClock?.();
    this.#cancelClock = null;
  }

  /** Seen once for good: no more watching, then the announcement. */
  #becomeSeen(): void {
    this.#cancelClock = null;
    this.#done = true;
    this.#stopWatching();
    this.#seen();
  }
}

/** The elements watched: one watch in an element's life, however often it shows a count. */
const watched = new WeakSet<HTMLElement>();

/**
 * Started by the element once it shows a count (src/experiments-on-demand.ts): watches `host`, and
 * when it is seen, announces its count, website and variant as its event and to dataLayer. The
 * report's website is the element's, trimmed: the client accepts no other. `showing()` holds only
 * while a count is shown, so `count` is one when the watch fires.
 */
export function watchImpressions(host: ImpressionHost, showing: () => boolean): void {
  if (watched.has(host)) return;
  watched.add(host);
  new ImpressionWatch(host, showing, () => {
    const websiteId = host.websiteId!.trim();
    reportImpression(host, {
      count: host.count!,
      websiteId,
      variant: variantFor(websiteId, host.holdout),
      windowMinutes: host.windowMinutes!,
    });
  });
}
