import type { RateDecision } from './rate-limiter.js';

/**
 * `X-RateLimit-*` on every answer to a known token (GitHub's names), and
 * `Retry-After` on a refusal. Reset is in Unix seconds, the moment one slot frees.
 */
export function rateLimitHeaders(decision: RateDecision, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(Math.ceil(decision.slotFreesAtMs / 1000)),
  };
  if (!decision.allowed) headers['Retry-After'] = String(secondsUntil(decision.slotFreesAtMs, nowMs));
  return headers;
}

/** Whole seconds, rounded up and at least 1, so a client that waits this long does get in. */
export function secondsUntil(atMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((atMs - nowMs) / 1000));
}
