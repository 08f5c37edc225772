import type { BrowserContext, Page } from 'playwright-core';

/** A fixed, whole-minute start, so simulated times print as round numbers. */
export const SIMULATION_START = Date.UTC(2026, 0, 15, 9, 0, 0);

const SETTLE_POLL_MS = 5;
/** A limit for requests that never finish, not a speed requirement: a busy machine finishes them late. */
const SETTLE_LIMIT_MS = 60_000;

export interface SettleOptions {
  /**
   * A request the service deliberately holds (the `hang` fault) counts as settled once it has
   * reached the service: only simulated time (the client's timeout) can end it.
   */
  heldAtService?: () => number;
}

/**
 * Simulated time for every page of one browser context, with real HTTP in between.
 *
 * Playwright's clock fakes `Date`, timers and `performance` in the pages; it is installed and
 * paused before any page script runs, so nothing moves unless `advance` moves it. After each
 * step the pages' work that needs real time (Web Locks, fetch, storage) is allowed to finish:
 * a poll holds its Web Lock from the moment its timer fires until its answer is stored, so "no
 * lock held or wanted" (from `navigator.locks.query()`) means no request is under way.
 */
export class SimulatedTime {
  readonly #context: BrowserContext;
  #elapsedMs = 0;

  private constructor(context: BrowserContext) {
    this.#context = context;
  }

  /** Call before the context opens any page. */
  static async install(context: BrowserContext): Promise<SimulatedTime> {
    await context.clock.install({ time: SIMULATION_START });
    await context.clock.pauseAt(SIMULATION_START);
    return new SimulatedTime(context);
  }

  /** Simulated milliseconds since `SIMULATION_START`. */
  get elapsedMs(): number {
    return this.#elapsedMs;
  }

  /**
   * Moves simulated time forward by `ms` in steps of `stepMs`, firing the pages' timers on the
   * way and letting real requests finish after every step; `afterStep` runs once each step has settled.
   */
  async advance(ms: number, stepMs: number, afterStep?: () => Promise<void> | void, options: SettleOptions = {}): Promise<void> {
    let left = ms;
    while (left > 0) {
      const step = Math.min(stepMs, left);
      await this.#context.clock.runFor(step);
      this.#elapsedMs += step;
      left -= step;
      await this.settle(options);
      await afterStep?.();
    }
  }

  /** Fires timers due now (a page just loaded, or came back online) and waits for the requests they start. */
  async settle(options: SettleOptions = {}): Promise<void> {
    await this.#context.clock.runFor(0);
    const page = this.#context.pages()[0];
    if (!page) return;
    const deadline = Date.now() + SETTLE_LIMIT_MS;
    for (;;) {
      const busy = await locksInUse(page);
      if (busy === 0) return;
      if (options.heldAtService && options.heldAtService() >= busy) return;
      if (Date.now() > deadline) throw new Error(`Still ${busy} poll(s) under way after ${SETTLE_LIMIT_MS} ms of real time`);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    }
  }
}

/** Web Locks held or waited for by any page of this origin in the context (one per poll under way). */
async function locksInUse(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const { held = [], pending = [] } = await navigator.locks.query();
    return held.length + pending.length;
  });
}

/** `m:ss` of simulated time, for tables. */
export function clockText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
