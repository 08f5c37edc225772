/** Undoes what was scheduled; calling it more than once is harmless. */
export type Cancel = () => void;

/**
 * The servers' only access to timers (the emulator's and the relay's), so tests move time forward instead of
 * waiting for it (together with the injected `now()` clock).
 */
export interface Timers {
  /** Calls `callback` once, `delayMs` from now. */
  after(delayMs: number, callback: () => void): Cancel;
  /** Calls `callback` every `periodMs` until cancelled. */
  every(periodMs: number, callback: () => void): Cancel;
}

export const systemTimers: Timers = {
  after(delayMs, callback) {
    const handle = setTimeout(callback, delayMs);
    return () => clearTimeout(handle);
  },
  every(periodMs, callback) {
    const handle = setInterval(callback, periodMs);
    return () => clearInterval(handle);
  },
};

/**
 * Resolves `'elapsed'` after `delayMs`, or `'aborted'` as soon as `signal` aborts,
 * so a request that waits on purpose never outlives its client.
 */
export function wait(timers: Timers, delayMs: number, signal: AbortSignal): Promise<'elapsed' | 'aborted'> {
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
