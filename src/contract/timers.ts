/**
 * The one definition of a scheduled callback, shared by the element's data layer and the servers (the relay's and the
 * emulator's), so every wait can be moved by a test's fake clock instead of waited for.
 */

/** Undoes what was scheduled; calling it again, or after the thing ended by itself, does nothing. */
export type Cancel = () => void;

/** A one-shot timer: the only shape a wait needs. */
export interface After {
  /** Calls `callback` once, `delayMs` from now (a delay below 0 counts as 0). */
  after(delayMs: number, callback: () => void): Cancel;
}

/** Timers for servers: a one-shot and a repeating one. */
export interface Timers extends After {
  /** Calls `callback` every `periodMs` until cancelled. */
  every(periodMs: number, callback: () => void): Cancel;
}

/**
 * The platform's own one-shot timer, looked up at call time so fake timers installed later are honoured.
 * Browsers and Workers hand out numbers that may be reused once a timer has run (the HTML spec
 * promises only an id not among the active ones): a fired timer's handle is never cleared, so a
 * stale cancel cannot stop a later timer.
 */
export function systemAfter(delayMs: number, callback: () => void): Cancel {
  let pending = true;
  const handle = setTimeout(() => {
    pending = false;
    callback();
  }, delayMs);
  return () => {
    if (pending) clearTimeout(handle);
    pending = false;
  };
}

/** The platform's own timers (the servers'), looked up at call time as `systemAfter` is. */
export const systemTimers: Timers = {
  after: systemAfter,
  every(periodMs, callback) {
    const handle = setInterval(callback, periodMs);
    return () => clearInterval(handle);
  },
};

/**
 * Resolves `'elapsed'` after `delayMs`, or `'aborted'` as soon as `signal` aborts,
 * so a request that waits on purpose never outlives its client.
 */
export function wait(timers: After, delayMs: number, signal: AbortSignal): Promise<'elapsed' | 'aborted'> {
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve) => {
    const onAbort = () => {
      cancel();
      resolve('aborted');
    };
    const cancel = timers.after(delayMs, () => {
      signal.removeEventListener('abort', onAbort);
      resolve('elapsed');
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
