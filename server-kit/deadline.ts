import type { After } from '../src/contract/timers.js';

/** The error of work that outlived its deadline; its message says what did not happen in time. */
export class DeadlineExceeded extends Error {
  override name = 'DeadlineExceeded';
}

/**
 * Runs `work` with a signal that aborts at the deadline, and settles as it does or rejects with
 * `DeadlineExceeded(message)` once `ms` have passed on `timers`, whichever comes first: for work
 * that may ignore its signal (a fetch whose runtime cancelled the request, a hung Redis, an RPC)
 * and would otherwise hold its callers for ever. A late result or failure of abandoned work is dropped.
 */
export async function withDeadline<T>(timers: After, ms: number, message: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let cancel = () => {};
  const expired = new Promise<never>((_, reject) => {
    cancel = timers.after(ms, () => {
      const error = new DeadlineExceeded(message);
      // Rejected before the abort: work that fails on its signal must not be taken for another failure.
      reject(error);
      controller.abort(error);
    });
  });
  try {
    const running = work(controller.signal);
    running.catch(() => {});
    return await Promise.race([running, expired]);
  } finally {
    cancel();
  }
}
