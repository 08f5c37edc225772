import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * How late this process may have read a clock: the longest its event loop did not run since the
 * last `reset()`. On a busy machine a server in the test's process notes a request's arrival that
 * much after it came, so two arrivals an interval apart may read as closer; tests add this
 * measured stall to their slack instead of a fixed one.
 */
export class StallMeter {
  readonly #delays = monitorEventLoopDelay({ resolution: 10 });

  constructor() {
    this.#delays.enable();
  }

  /** The longest stall since the meter started or was last reset, in ms. */
  get longestMs(): number {
    return this.#delays.max / 1e6;
  }

  reset(): void {
    this.#delays.reset();
  }

  stop(): void {
    this.#delays.disable();
  }
}
