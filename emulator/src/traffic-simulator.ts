import type { Cancel, Timers } from '../../src/contract/timers.js';
import { VISITOR_WINDOW_MS } from './visitor-window.js';

/** Highest target per website: simulated visitors are held in memory. */
export const MAX_SIMULATED_VISITORS = 10_000;

/** Where simulated visitors browse: one website of the emulator. */
export interface SimulatedWebsite {
  recordPageview(visitorId: string, atMs: number): void;
  currentVisitors(): number;
  forgetVisitor(visitorId: string): void;
}

/** How simulated visitors behave; the arrival rate follows from these and the target. */
export interface VisitBehaviour {
  /** Mean pageviews per visit (geometric distribution, so most visits are short). */
  readonly meanPageviewsPerVisit: number;
  /** Time spent on a page before the next one, drawn uniformly between these. */
  readonly minSecondsOnPage: number;
  readonly maxSecondsOnPage: number;
  /** Arrivals close a gap to the target in about this long. */
  readonly catchUpSeconds: number;
  /** How often the simulation advances. */
  readonly tickMs: number;
}

export const DEFAULT_VISIT_BEHAVIOUR: VisitBehaviour = Object.freeze({
  meanPageviewsPerVisit: 4,
  minSecondsOnPage: 10,
  maxSecondsOnPage: 60,
  catchUpSeconds: 30,
  tickMs: 1_000,
});

export interface TrafficSimulatorOptions {
  readonly website: SimulatedWebsite;
  readonly now: () => number;
  readonly random: () => number;
  readonly timers: Timers;
  /** Prefix of the simulated visitor ids, e.g. `sim-demo-shop-`. */
  readonly visitorIdPrefix: string;
  readonly behaviour?: Partial<VisitBehaviour>;
}

interface Visit {
  nextPageviewAtMs: number;
  pageviewsLeft: number;
}

const MAX_PAGEVIEWS_PER_VISIT = 50;
const MAX_TICKS_CAUGHT_UP = 5;

/**
 * Visitors arrive, browse a few pages and leave, so the count moves like real
 * traffic around a target. Arrivals follow Little's law — rate = target / time a
 * visitor stays counted (visit + 3-minute window) — plus a correction towards the
 * target, so a new target is approached in about `catchUpSeconds` when rising. When
 * falling, the count drops only as visitors leave and age out of the window, exactly
 * as the real service would show it, unless `immediate` is asked for.
 */
export class TrafficSimulator {
  readonly #website: SimulatedWebsite;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #timers: Timers;
  readonly #prefix: string;
  readonly #behaviour: VisitBehaviour;
  readonly #browsing = new Map<string, Visit>();
  // Left but possibly still counted; kept (oldest first) so an immediate drop can forget them.
  readonly #departedAtMs = new Map<string, number>();
  #target = 0;
  #nextVisitorNumber = 1;
  #lastTickMs = 0;
  #stopTicking: Cancel | undefined;

  constructor(options: TrafficSimulatorOptions) {
    this.#website = options.website;
    this.#now = options.now;
    this.#random = options.random;
    this.#timers = options.timers;
    this.#prefix = options.visitorIdPrefix;
    this.#behaviour = { ...DEFAULT_VISIT_BEHAVIOUR, ...options.behaviour };
  }

  get target(): number {
    return this.#target;
  }

  get isRunning(): boolean {
    return this.#stopTicking !== undefined;
  }

  /** Simulated visitors in the middle of a visit. */
  get browsingVisitors(): number {
    return this.#browsing.size;
  }

  start(): void {
    if (this.isRunning) return;
    this.#lastTickMs = this.#now();
    this.#stopTicking = this.#timers.every(this.#behaviour.tickMs, () => this.#tick());
  }

  /** Stops arrivals and browsing; visitors already counted age out of the window as usual. */
  stop(): void {
    this.#stopTicking?.();
    this.#stopTicking = undefined;
    const nowMs = this.#now();
    for (const visitorId of this.#browsing.keys()) this.#departedAtMs.set(visitorId, nowMs);
    this.#browsing.clear();
  }

  /**
   * @param immediate jump to the target now — new visitors arrive at once, or simulated
   *   visitors are forgotten — instead of drifting there as real traffic would.
   */
  setTarget(target: number, { immediate = false }: { immediate?: boolean } = {}): void {
    if (!Number.isInteger(target) || target < 0 || target > MAX_SIMULATED_VISITORS) {
      throw new RangeError(`target must be a whole number from 0 to ${MAX_SIMULATED_VISITORS}`);
    }
    this.#target = target;
    if (immediate) this.#jumpToTarget();
  }

  #tick(): void {
    const nowMs = this.#now();
    // Bounded so a machine waking from sleep does not release hours of arrivals at once.
    const elapsedMs = Math.min(Math.max(0, nowMs - this.#lastTickMs), MAX_TICKS_CAUGHT_UP * this.#behaviour.tickMs);
    this.#lastTickMs = nowMs;
    this.#continueVisits(nowMs);
    const arrivals = this.#sampleArrivals(elapsedMs);
    for (let arrival = 0; arrival < arrivals; arrival += 1) this.#arrive(nowMs);
    this.#forgetDepartedOutsideWindow(nowMs);
  }

  #continueVisits(nowMs: number): void {
    let count = this.#website.currentVisitors();
    for (const [visitorId, visit] of this.#browsing) {
      if (visit.nextPageviewAtMs > nowMs) continue;
      // Over target, some visitors leave early, so a lower target is felt sooner.
      const leavesEarly = count > this.#target && this.#random() < (count - this.#target) / count;
      if (leavesEarly) {
        this.#depart(visitorId, nowMs);
        continue;
      }
      this.#website.recordPageview(visitorId, nowMs);
      visit.pageviewsLeft -= 1;
      if (visit.pageviewsLeft <= 0) this.#depart(visitorId, nowMs);
      else visit.nextPageviewAtMs = nowMs + this.#secondsOnPage() * 1000;
      count = this.#website.currentVisitors();
    }
  }

  #sampleArrivals(elapsedMs: number): number {
    const { catchUpSeconds } = this.#behaviour;
    // Steady rate plus a correction both ways: above target arrivals slow or stop, which
    // keeps the overshoot after a rise small (about 10 %).
    const gap = this.#target - this.#website.currentVisitors();
    const perMs = this.#target / this.#countedSpanMs() + gap / (catchUpSeconds * 1000);
    const expected = Math.max(0, perMs * elapsedMs);
    // Randomised rounding keeps the long-run rate exact at any tick length.
    const arrivals = Math.floor(expected) + (this.#random() < expected % 1 ? 1 : 0);
    return Math.max(0, Math.min(arrivals, MAX_SIMULATED_VISITORS - this.#browsing.size));
  }

  // How long one visitor stays in the count: its visit, then the 3-minute window.
  #countedSpanMs(): number {
    const { meanPageviewsPerVisit, minSecondsOnPage, maxSecondsOnPage } = this.#behaviour;
    const visitMs = (meanPageviewsPerVisit - 1) * ((minSecondsOnPage + maxSecondsOnPage) / 2) * 1000;
    return visitMs + VISITOR_WINDOW_MS;
  }

  #arrive(nowMs: number): void {
    const visitorId = `${this.#prefix}${this.#nextVisitorNumber}`;
    this.#nextVisitorNumber += 1;
    this.#website.recordPageview(visitorId, nowMs);
    const pageviews = this.#samplePageviewsPerVisit();
    if (pageviews <= 1) this.#departedAtMs.set(visitorId, nowMs);
    else this.#browsing.set(visitorId, { nextPageviewAtMs: nowMs + this.#secondsOnPage() * 1000, pageviewsLeft: pageviews - 1 });
  }

  #depart(visitorId: string, nowMs: number): void {
    this.#browsing.delete(visitorId);
    this.#departedAtMs.set(visitorId, nowMs);
  }

  #jumpToTarget(): void {
    const nowMs = this.#now();
    let count = this.#website.currentVisitors();
    for (; count < this.#target; count += 1) this.#arrive(nowMs);
    // Forget those who left first, then those still browsing: the least visible change.
    for (const visitorIds of [this.#departedAtMs.keys(), this.#browsing.keys()]) {
      for (const visitorId of visitorIds) {
        if (count <= this.#target) return;
        this.#website.forgetVisitor(visitorId);
        this.#departedAtMs.delete(visitorId);
        this.#browsing.delete(visitorId);
        count = this.#website.currentVisitors();
      }
    }
  }

  // Departure times only grow, so the oldest are first in the map and the sweep stops early.
  #forgetDepartedOutsideWindow(nowMs: number): void {
    for (const [visitorId, departedAtMs] of this.#departedAtMs) {
      if (departedAtMs >= nowMs - VISITOR_WINDOW_MS) return;
      this.#departedAtMs.delete(visitorId);
    }
  }

  #samplePageviewsPerVisit(): number {
    const stopChance = 1 / Math.max(1, this.#behaviour.meanPageviewsPerVisit);
    if (stopChance >= 1) return 1;
    const extra = Math.floor(Math.log(1 - this.#random()) / Math.log(1 - stopChance));
    return Math.min(MAX_PAGEVIEWS_PER_VISIT, 1 + extra);
  }

  #secondsOnPage(): number {
    const { minSecondsOnPage, maxSecondsOnPage } = this.#behaviour;
    return minSecondsOnPage + this.#random() * (maxSecondsOnPage - minSecondsOnPage);
  }
}
