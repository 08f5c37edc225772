import { describe, expect, it } from 'vitest';
import rules from '../../src/contract/rules.json' with { type: 'json' };
import { refusal } from '../src/registry/registration-checks.js';

// A registration's 429/503 says when to come back as every relay answer does (the contract's
// retryAfterSeconds with the relay's hour cap), even when the store's "next room" time lies.
describe("a registration refusal's Retry-After", () => {
  it.each<[string, number, number]>([
    ['a wait in ms, rounded up to whole seconds', 2_001, 3],
    ['no wait left: at least a second', -5_000, 1],
    ['a wait past the cap: the relay’s hour', 1e300, rules.relayMaxRetryAfterSeconds],
    ['a wait a lying store made NaN: a second, never "NaN"', Number.NaN, 1],
  ])('%s', (_, waitMs, seconds) => {
    expect(refusal(429, 'Too many', waitMs).retryAfterSeconds).toBe(seconds);
  });

  it('is absent when there is no wait to tell', () => {
    expect(refusal(400, 'Bad').retryAfterSeconds).toBeUndefined();
  });
});
