import type { RealtimeErrorKind } from './errors.js';

/** Longest wait between two attempts while the service keeps failing (unless the interval is longer). */
export const MAX_BACKOFF_MS = 10 * 60_000;
/** Wait after a 429 that did not say how long to wait. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 5 * 60_000;
/** Plan limits are hourly: no 429 needs a longer wait than that (unless the interval is longer). */
const MAX_RATE_LIMIT_WAIT_MS = 60 * 60_000;

export interface FailedAttempt {
  kind: RealtimeErrorKind;
  retryAfterMs: number | null;
}

/**
 * How long to wait after the `failures`-th failure in a row. Never shorter than the normal
 * interval, so a failing service never sees more requests than a healthy one.
 *
 * Exponential (2, 4, 8… intervals) with jitter that only shortens the wait, so the cap holds
 * with jitter included and browsers that failed together do not retry together.
 */
export function retryDelay(attempt: FailedAttempt, failures: number, intervalMs: number, random: number): number {
  if (attempt.kind === 'rate-limited') {
    const asked = attempt.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
    // The service said when: honour it, plus a little spread so every tab does not return at once.
    const ceiling = Math.max(MAX_RATE_LIMIT_WAIT_MS, intervalMs);
    return Math.min(ceiling, Math.max(intervalMs, asked) * (1 + 0.1 * random));
  }
  const cap = Math.max(MAX_BACKOFF_MS, intervalMs);
  const step = Math.min(cap, intervalMs * 2 ** Math.max(1, failures));
  return Math.max(intervalMs, step * (1 - 0.25 * random));
}
