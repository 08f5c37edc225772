import type { RealtimeErrorKind } from './errors.js';
import rules from './rules.json' with { type: 'json' };

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
    // A 429 that did not say how long: `defaultRateLimitWaitMs`. Plan limits are hourly: no 429 needs a longer wait
    // than `maxRateLimitWaitMs` (unless the interval is longer).
    const asked = attempt.retryAfterMs ?? rules.defaultRateLimitWaitMs;
    // The service said when: honour it, plus a little spread so every tab does not return at once.
    const ceiling = Math.max(rules.maxRateLimitWaitMs, intervalMs);
    return Math.min(ceiling, Math.max(intervalMs, asked) * (1 + rules.rateLimitJitter * random));
  }
  // The longest wait between two attempts while the service keeps failing, unless the interval is longer.
  const cap = Math.max(rules.maxBackoffMs, intervalMs);
  const step = Math.min(cap, intervalMs * rules.backoffFactor ** Math.max(1, failures));
  return Math.max(intervalMs, step * (1 - rules.backoffJitter * random));
}
