import type { Cancel, Timers } from '../../../src/contract/timers.js';

interface Task {
  atMs: number;
  order: number;
  callback: () => void;
  periodMs: number | undefined;
  cancelled: boolean;
}

/** A clock and timers that move only when the test says so. */
export class FakeTime implements Timers {
  #nowMs: number;
  #order = 0;
  #tasks: Task[] = [];

  constructor(startMs = Date.UTC(2025, 0, 15, 12, 0, 0, 0)) {
    this.#nowMs = startMs;
  }

  readonly now = (): number => this.#nowMs;

  get pendingTimers(): number {
    return this.#tasks.filter((task) => !task.cancelled).length;
  }

  after(delayMs: number, callback: () => void): Cancel {
    return this.#schedule(delayMs, callback, undefined);
  }

  every(periodMs: number, callback: () => void): Cancel {
    return this.#schedule(periodMs, callback, periodMs);
  }

  /** Moves the clock forward, running every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const endMs = this.#nowMs + ms;
    for (;;) {
      const next = this.#tasks
        .filter((task) => !task.cancelled && task.atMs <= endMs)
        .sort((a, b) => a.atMs - b.atMs || a.order - b.order)[0];
      if (!next) break;
      this.#nowMs = next.atMs;
      if (next.periodMs === undefined) next.cancelled = true;
      else next.atMs += next.periodMs;
      next.callback();
    }
    this.#tasks = this.#tasks.filter((task) => !task.cancelled);
    this.#nowMs = endMs;
  }

  #schedule(delayMs: number, callback: () => void, periodMs: number | undefined): Cancel {
    const task: Task = { atMs: this.#nowMs + delayMs, order: this.#order++, callback, periodMs, cancelled: false };
    this.#tasks.push(task);
    return () => {
      task.cancelled = true;
    };
  }
}
