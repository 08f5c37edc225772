import { pageParse, type TraceEvent } from './trace-events.js';

/** Blocking time after a page's first contentful paint, counted from a trace two ways. */
export interface BlockingTime {
  /** From each task's wall time, as Lantern reads it: what the machine's load adds is in it. */
  wall: number;
  /** From each task's CPU time: what the page's own work would block on a machine with nothing else to run. */
  cpu: number;
}

/** Lighthouse's mobile CPU slowdown, by which the simulation multiplies every traced task. */
const CPU_SLOWDOWN = 4;
/** A task blocks for what it runs beyond 50 ms (Total Blocking Time). */
const LONG_TASK_MS = 50;

/**
 * Sums, over the page's main-thread tasks that start at or after its first contentful paint, what
 * each blocks beyond 50 ms once multiplied by the simulation's 4×: once from wall time, once from
 * CPU time. An approximation of Lantern's TBT (which schedules the tasks itself and stops at TTI),
 * made to tell a page's work from a busy machine: on this shared 2-core machine a task of 2 ms of
 * CPU time can take 40 ms of wall time, and counts 110 ms of blocking. NaN for both when the trace
 * has no parse of `pageUrl` or no first contentful paint on its thread.
 */
export function blockingTimeAfterFirstPaint(traceEvents: TraceEvent[], pageUrl: string): BlockingTime {
  const parse = pageParse(traceEvents, pageUrl);
  const onPageThread = (event: TraceEvent) => parse !== undefined && event.pid === parse.pid && event.tid === parse.tid;
  const paint = traceEvents.find((event) => event.name === 'firstContentfulPaint' && onPageThread(event));
  if (!paint) return { wall: Number.NaN, cpu: Number.NaN };
  const blocking = (ms: number) => Math.max(0, ms * CPU_SLOWDOWN - LONG_TASK_MS);
  let [wall, cpu] = [0, 0];
  for (const task of traceEvents) {
    if (task.name !== 'RunTask' || !onPageThread(task) || task.ts < paint.ts) continue;
    wall += blocking((task.dur ?? 0) / 1000);
    cpu += blocking((task.tdur ?? task.dur ?? 0) / 1000);
  }
  return { wall, cpu };
}
