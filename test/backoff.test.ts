import { describe, expect, it } from 'vitest';
import { type FailedAttempt, retryDelay } from '../src/contract/backoff.js';
import rules from '../src/contract/rules.json' with { type: 'json' };
import type { RealtimeErrorKind } from '../src/realtime/errors.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const FAILURES = Array.from({ length: 20 }, (_, index) => index + 1);
const RANDOMS = [0, 0.5, 0.999];
const RETRYABLE: RealtimeErrorKind[] = ['server', 'network', 'timeout', 'invalid-response'];

const failed = (kind: RealtimeErrorKind, retryAfterMs: number | null = null): FailedAttempt => ({ kind, retryAfterMs });
const server = failed('server');

/** Every (failures, random) pair, for rules that must hold everywhere. */
const grid = FAILURES.flatMap((failures) => RANDOMS.map((random) => ({ failures, random })));

describe('retryDelay after server, network, timeout and invalid-response failures', () => {
  it.each(RETRYABLE)('doubles with each failure for %s, up to 10 minutes (interval 60 s, no jitter)', (kind) => {
    const delays = [1, 2, 3, 4, 5].map((failures) => retryDelay(failed(kind), failures, MINUTE, 0));
    expect(delays).toEqual([2 * MINUTE, 4 * MINUTE, 8 * MINUTE, 10 * MINUTE, 10 * MINUTE]);
  });

  it('ignores retryAfterMs unless the service rate-limited us', () => {
    expect(retryDelay(failed('server', HOUR), 1, MINUTE, 0)).toBe(2 * MINUTE);
  });

  it.each(FAILURES)('jitter only shortens the wait, by at most a quarter (failure %i)', (failures) => {
    const full = retryDelay(server, failures, MINUTE, 0);
    const jittered = retryDelay(server, failures, MINUTE, 0.999);
    expect(jittered).toBeLessThan(full);
    expect(jittered).toBeGreaterThanOrEqual(0.75 * full);
  });

  it.each([15 * SECOND, MINUTE, 5 * MINUTE])('is never shorter than the interval (%i ms), jitter included', (intervalMs) => {
    for (const { failures, random } of grid) {
      expect(retryDelay(server, failures, intervalMs, random), `failures ${failures}, random ${random}`).toBeGreaterThanOrEqual(intervalMs);
    }
  });

  it.each([15 * SECOND, MINUTE, 5 * MINUTE])('is capped at 10 minutes with jitter included (interval %i ms)', (intervalMs) => {
    for (const { failures, random } of grid) {
      expect(retryDelay(server, failures, intervalMs, random), `failures ${failures}, random ${random}`).toBeLessThanOrEqual(
        rules.maxBackoffMs,
      );
    }
    expect(retryDelay(server, 20, intervalMs, 0)).toBe(rules.maxBackoffMs);
  });

  it('caps at the interval itself when the interval is longer than 10 minutes', () => {
    const intervalMs = 20 * MINUTE;
    for (const { failures, random } of grid) {
      expect(retryDelay(server, failures, intervalMs, random)).toBeLessThanOrEqual(intervalMs);
    }
    expect(retryDelay(server, 1, intervalMs, 0)).toBe(intervalMs);
    expect(retryDelay(server, 20, intervalMs, 0)).toBe(intervalMs);
  });

  // Jitter near the cap must not pull the wait under a long interval.
  it.each([9 * MINUTE, 20 * MINUTE])('is never shorter than a long interval (%i ms), jitter included', (intervalMs) => {
    for (const { failures, random } of grid) {
      expect(retryDelay(server, failures, intervalMs, random), `failures ${failures}, random ${random}`).toBeGreaterThanOrEqual(intervalMs);
    }
  });
});

describe('retryDelay after a 429', () => {
  const limited = (retryAfterMs: number | null) => failed('rate-limited', retryAfterMs);

  it('waits exactly as long as Retry-After asked (no jitter)', () => {
    expect(retryDelay(limited(2 * MINUTE), 1, MINUTE, 0)).toBe(2 * MINUTE);
  });

  it.each(RANDOMS)('never returns before Retry-After, and spreads tabs by at most 10%% (random %s)', (random) => {
    const delay = retryDelay(limited(2 * MINUTE), 1, MINUTE, random);
    expect(delay).toBeGreaterThanOrEqual(2 * MINUTE);
    expect(delay).toBeLessThanOrEqual(2.2 * MINUTE);
  });

  it('does not depend on how many failures came before', () => {
    expect(FAILURES.map((failures) => retryDelay(limited(2 * MINUTE), failures, MINUTE, 0))).toEqual(FAILURES.map(() => 2 * MINUTE));
  });

  it.each([0, 10 * SECOND])('is not shorter than the interval when Retry-After is %i ms', (retryAfterMs) => {
    expect(retryDelay(limited(retryAfterMs), 1, MINUTE, 0)).toBe(MINUTE);
  });

  it.each(RANDOMS)('waits at most one hour, however long Retry-After asks (random %s)', (random) => {
    expect(retryDelay(limited(3 * HOUR), 1, MINUTE, random)).toBe(HOUR);
    expect(retryDelay(limited(59 * MINUTE), 1, MINUTE, random)).toBeLessThanOrEqual(HOUR);
  });

  it('waits 5 minutes when the service sent no Retry-After', () => {
    expect(retryDelay(limited(null), 1, MINUTE, 0)).toBe(5 * MINUTE);
    expect(retryDelay(limited(null), 1, MINUTE, 0.999)).toBeGreaterThanOrEqual(5 * MINUTE);
  });

  it('waits the interval when the interval is longer than the 5-minute default', () => {
    expect(retryDelay(limited(null), 1, 8 * MINUTE, 0)).toBe(8 * MINUTE);
  });

  // The one-hour ceiling after a 429 yields to a longer interval.
  it('is not shorter than an interval longer than one hour', () => {
    expect(retryDelay(limited(2 * MINUTE), 1, 2 * HOUR, 0)).toBeGreaterThanOrEqual(2 * HOUR);
  });
});
