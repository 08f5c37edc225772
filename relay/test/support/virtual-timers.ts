import type { Timers } from '../../../src/contract/timers.js';

/** Timers on a virtual clock, and every wait asked of them, in order. */
export interface VirtualTimers extends Timers {
  /** The delay of every `after` and the period of every `every`, as asked. */
  readonly waits: number[];
  /** The virtual time: how far the timers have moved. */
  readonly nowMs: () => number;
}

/**
 * Timers on a virtual clock of their own: callbacks run in the order they fall due, one per
 * macrotask (so the work each starts can schedule the next), and none waits for real time. A wait
 * that went to the system's timers instead would hold its test for real, and is missing from `waits`.
 */
export function virtualTimers(): VirtualTimers {
  let virtualNowMs = 0;
  let order = 0;
  const due: Array<{ atMs: number; order: number; callback: () => void; periodMs: number | undefined }> = [];
  let pumping = false;
  const pump = () => {
    setImmediate(() => {
      due.sort((a, b) => a.atMs - b.atMs || a.order - b.order);
      const next = due.shift();
      if (next) {
        virtualNowMs = next.atMs;
        if (next.periodMs !== undefined) due.push({ ...next, atMs: next.atMs + next.periodMs, order: order++ });
        next.callback();
      }
      if (due.length > 0) pump();
      else pumping = false;
    });
  };
  const schedule = (delayMs: number, callback: () => void, periodMs: number | undefined) => {
    waits.push(delayMs);
    const entry = { atMs: virtualNowMs + delayMs, order: order++, callback, periodMs };
    due.push(entry);
    if (!pumping) {
      pumping = true;
      pump();
    }
    return () => {
      // A repeating entry is pushed again each time it runs: cancel by its callback.
      for (let index = due.length - 1; index >= 0; index -= 1) if (due[index]!.callback === callback) due.splice(index, 1);
    };
  };
  const waits: number[] = [];
  return {
    waits,
    nowMs: () => virtualNowMs,
    after: (delayMs, callback) => schedule(delayMs, callback, undefined),
    every: (periodMs, callback) => schedule(periodMs, callback, periodMs),
  };
}
