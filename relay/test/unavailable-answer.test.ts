// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { type Unavailability, unavailableAnswer } from '../src/unavailable-answer.js';

/** What a browser is told when the relay has nothing younger than maxStale: one row per cause (issue 30 §1, §4). */
describe('unavailableAnswer', () => {
  const times = { nowMs: 1_000_000, retryAtMs: 1_000_000 + 42_500, maxStale: 600 };
  const fallback = 'the relay holds no answer younger than 600 s; it asks again in 43 s.';

  it.each<[string, Unavailability, number, string]>([
    [
      'another instance asks',
      { cause: 'other-instance' },
      503,
      `Another relay instance is asking the analytics service for this website and has not answered yet; ${fallback}`,
    ],
    [
      'the service timed out',
      { cause: 'service-failed', failure: { kind: 'timeout', status: null, reason: 'did not answer within 5 s' } },
      504,
      `The analytics service did not answer within 5 s; ${fallback}`,
    ],
    [
      'the service limited the rate',
      { cause: 'service-failed', failure: { kind: 'rate-limited', status: 429, reason: 'answered 429' } },
      503,
      `The analytics service answered 429; ${fallback}`,
    ],
    [
      'the service failed otherwise',
      { cause: 'service-failed', failure: { kind: 'server', status: 500, reason: 'answered 500' } },
      502,
      `The analytics service answered 500; ${fallback}`,
    ],
    ['the store is down', { cause: 'store-down' }, 503, `The relay cannot reach its shared store; ${fallback}`],
    [
      'the budget is spent',
      { cause: 'budget-spent', hourlyBudget: 100 },
      503,
      `The relay's hourly budget of 100 upstream requests is spent; ${fallback}`,
    ],
    ['nothing asked yet', { cause: 'no-answer-yet' }, 503, `The relay has no answer for this website yet; ${fallback}`],
  ])('%s: %j', (_name, unavailability, status, message) => {
    expect(unavailableAnswer(unavailability, times)).toEqual({ kind: 'unavailable', status, message, retryAtMs: times.retryAtMs });
  });

  it("a browser whose own wait ran out is told to come back in a second, whatever the relay's next attempt", () => {
    expect(unavailableAnswer({ cause: 'still-waiting' }, times)).toEqual({
      kind: 'unavailable',
      status: 503,
      message: 'The relay is still waiting for the analytics service for this website; ask again in 1 s.',
      retryAtMs: times.nowMs + 1_000,
    });
  });
});
