import { pageParse, type TraceEvent } from './trace-events.js';

/** The task in which a page's HTML parse began, as Chromium traced it. */
export interface FirstParseTask {
  /** Wall-clock milliseconds: what Lantern multiplies by the CPU slowdown (4×) and counts in FCP. */
  wall: number;
  /** Milliseconds the main thread actually ran: the part a page's own markup and scripts cost. */
  cpu: number;
}

/**
 * Reads the first parse task of `pageUrl` from a Lighthouse trace. Its wall time and its CPU time
 * part ways when the machine is busy: a renderer kept off the CPU looks slower to the simulation
 * than the page is. NaN for both when the trace has no such task.
 */
export function firstParseTask(traceEvents: TraceEvent[], pageUrl: string): FirstParseTask {
  const parse = pageParse(traceEvents, pageUrl);
  const task =
    parse &&
    traceEvents.find(
      (event) =>
        event.name === 'RunTask' &&
        event.pid === parse.pid &&
        event.tid === parse.tid &&
        event.ts <= parse.ts &&
        event.ts + (event.dur ?? 0) >= parse.ts + (parse.dur ?? 0),
    );
  if (!task?.dur || task.tdur === undefined) return { wall: Number.NaN, cpu: Number.NaN };
  return { wall: task.dur / 1000, cpu: task.tdur / 1000 };
}
