// @vitest-environment node
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../server-kit/rolling-hour.js';
import { retryAfterSeconds } from '../../src/contract/retry-after.js';
import rules from '../../src/contract/rules.json' with { type: 'json' };
import { holds } from '../../test/support/properties.js';
import { parseRelayConfig, RelayConfigError } from '../src/config.js';
import { parseRelayConfigWithEnvironment, RELAY_ENVIRONMENT_VARIABLES } from '../src/environment-overrides.js';
import { Redactor, secretForms } from '../src/redaction.js';
import { freshnessHeaders, retryAfterHeader } from '../src/responses.js';
import { FUTURE_TOLERANCE_MS, maxWaitMs, readBudgetDecision, readWebsiteState } from '../src/store/stored-records.js';

/**
 * What must hold for any input of the relay's readers of untrusted data (issue 25): what its store
 * returns, the Retry-After it sends, its config, and what it prints of someone else's words.
 * fast-check prints the seed and the shrunk counterexample of any failure, so it can be replayed.
 */

const WEBSITE = 'shop-a';
const TOKEN = 'tokA-SECRET-7f3a9c';

/** Any time a store could hold: ordinary, absurd, not finite. */
const anyTime = fc.oneof(
  fc.double({ noNaN: false }),
  fc.integer({ min: -1e13, max: 1e13 }),
  fc.constantFrom(1e300, -1e300, 1e15, 4e12, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN),
);
/** A clock a relay could have. */
const aNow = fc.integer({ min: 1e12, max: 5e12 });
const anInterval = fc.integer({ min: 1, max: 3_600 }).map((seconds) => seconds * 1000);

const reportBody = (visitors: number) =>
  JSON.stringify({ currentVisitors: visitors, websiteId: WEBSITE, timestamp: '2025-01-15T12:00:00.000Z' });

/** Records shaped like a state, with every field drawn from valid and hostile values alike. */
const stateLike = fc.record({
  answer: fc.oneof(
    fc.constant(null),
    fc.record({
      body: fc.oneof(fc.nat({ max: 1e6 }).map(reportBody), fc.string()),
      etag: fc.oneof(fc.constant('"0123abcd"'), fc.string()),
      fetchedAtMs: anyTime,
    }),
    fc.anything(),
  ),
  failures: fc.oneof(fc.nat(), fc.double(), fc.anything()),
  nextAttemptAtMs: anyTime,
  failure: fc.oneof(
    fc.constant(null),
    fc.record({
      kind: fc.constantFrom('server', 'timeout', 'rate-limited', 'boom'),
      status: fc.oneof(fc.constant(null), fc.integer({ min: -5, max: 2_000 })),
      reason: fc.oneof(fc.constant('answered 500'), fc.string(), fc.constant(`said ${TOKEN} "\u202Equoted"`)),
    }),
  ),
});

/** What a store may hand back: a state-like object, its JSON, or anything at all. */
const storeValue = fc.oneof(
  stateLike,
  stateLike.map((value) => JSON.stringify(value)),
  fc.anything(),
  fc.string(),
);

describe('readWebsiteState, for anything a store returns', () => {
  it('never throws, and whatever it accepts is bounded: no answer from the future, no wait past its cap, no quoted words', () => {
    holds(
      fc.property(storeValue, aNow, anInterval, (raw, nowMs, intervalMs) => {
        const reading = readWebsiteState(raw, { websiteId: WEBSITE, nowMs, intervalMs });
        if (reading.state === null) return;
        const { answer, nextAttemptAtMs, failure } = reading.state;
        expect(nextAttemptAtMs).toBeLessThanOrEqual(nowMs + maxWaitMs(intervalMs));
        if (answer) {
          expect(Number.isFinite(answer.fetchedAtMs)).toBe(true);
          expect(answer.fetchedAtMs).toBeLessThanOrEqual(nowMs + FUTURE_TOLERANCE_MS);
          // The Age the relay would send with it is a whole number, never negative.
          expect(freshnessHeaders(nowMs - answer.fetchedAtMs, 'x').Age).toMatch(/^\d+$/);
        }
        if (failure) expect(failure.reason).not.toMatch(/["\u202E]/);
      }),
    );
  });

  it('reads back exactly what the relay writes, when its times are honest', () => {
    holds(
      fc.property(aNow, anInterval, fc.nat({ max: 1e6 }), fc.integer({ min: 0, max: 600_000 }), (nowMs, intervalMs, visitors, ageMs) => {
        const state = {
          answer: { body: reportBody(visitors), etag: '"00ff00ff00ff00ff"', fetchedAtMs: nowMs - ageMs },
          failures: 0,
          nextAttemptAtMs: nowMs - ageMs + intervalMs,
          failure: null,
        };
        expect(readWebsiteState(JSON.parse(JSON.stringify(state)), { websiteId: WEBSITE, nowMs, intervalMs })).toEqual({
          state,
          problem: null,
        });
      }),
    );
  });
});

describe('readBudgetDecision, for anything a store returns', () => {
  it('never throws, and its next room is never before now nor more than an hour away', () => {
    const decisionLike = fc.oneof(fc.record({ taken: fc.oneof(fc.boolean(), fc.anything()), nextRoomAtMs: anyTime }), fc.anything());
    holds(
      fc.property(decisionLike, aNow, (raw, nowMs) => {
        const decision = readBudgetDecision(raw, nowMs);
        if (decision === null) return;
        expect(decision.nextRoomAtMs).toBeGreaterThanOrEqual(nowMs);
        expect(decision.nextRoomAtMs).toBeLessThanOrEqual(nowMs + HOUR_MS);
      }),
    );
  });
});

describe('Retry-After', () => {
  it('the relay sends is a small whole number of seconds for any pair of times', () => {
    holds(
      fc.property(anyTime, anyTime, (retryAtMs, nowMs) => {
        const header = retryAfterHeader(retryAtMs, nowMs);
        expect(header).toMatch(/^\d{1,4}$/);
        expect(Number(header)).toBeGreaterThanOrEqual(1);
        expect(Number(header)).toBeLessThanOrEqual(3_600);
      }),
    );
  });

  it('of the shared contract is a whole number of at least 1 for any wait up to a day', () => {
    holds(
      fc.property(aNow, fc.double({ min: -1e9, max: 86_400_000, noNaN: true }), (nowMs, waitMs) => {
        const seconds = retryAfterSeconds(nowMs + waitMs, nowMs, rules.dayCeilingMs / 1000);
        expect(Number.isSafeInteger(seconds)).toBe(true);
        expect(seconds).toBeGreaterThanOrEqual(1);
        expect(seconds).toBeLessThanOrEqual(86_400 + 1);
      }),
    );
  });
});

describe('the relay config, for any input', () => {
  const websites = fc.oneof(
    fc.constant([{ id: WEBSITE, token: TOKEN }]),
    fc.array(
      fc.record({ id: fc.oneof(fc.string(), fc.constant(WEBSITE)), token: fc.oneof(fc.string(), fc.constant(TOKEN), fc.anything()) }),
    ),
    fc.anything(),
  );
  const configLike = fc.record(
    {
      upstream: fc.oneof(fc.constant('https://analytics.example'), fc.string(), fc.webUrl()),
      websites,
      interval: fc.oneof(fc.integer({ min: -10, max: 10_000 }), fc.double(), fc.string()),
      maxStale: fc.oneof(fc.integer({ min: -10, max: 1e6 }), fc.double(), fc.anything()),
      hourlyBudget: fc.oneof(fc.integer({ min: -10, max: 2e6 }), fc.anything()),
      store: fc.oneof(fc.constant('memory'), fc.string(), fc.constant('redis://:redis-pw@127.0.0.1:6379/0')),
      allowOrigins: fc.oneof(fc.array(fc.string()), fc.anything()),
    },
    { requiredKeys: [] },
  );

  it('parses or throws RelayConfigError, never anything else, never quoting the token, never a bound exceeded', () => {
    holds(
      fc.property(fc.oneof(configLike, fc.anything()), (input) => {
        try {
          const config = parseRelayConfig(input);
          expect(config.interval).toBeGreaterThanOrEqual(1);
          expect(config.interval).toBeLessThanOrEqual(3_600);
          expect(config.maxStale).toBeGreaterThanOrEqual(config.interval);
          expect(config.hourlyBudget).toBeGreaterThanOrEqual(1);
          expect(JSON.stringify(config)).not.toContain(TOKEN);
        } catch (error) {
          expect(error).toBeInstanceOf(RelayConfigError);
          expect((error as Error).message).not.toContain(TOKEN);
        }
      }),
    );
  });

  it('from environment variables: the same, whatever text each variable holds', () => {
    const names = Object.values(RELAY_ENVIRONMENT_VARIABLES);
    const environment = fc.dictionary(
      fc.constantFrom(...names),
      fc.oneof(fc.string(), fc.constant(JSON.stringify([{ id: WEBSITE, token: TOKEN }])), fc.constant(`[{"id":"x","token":"${TOKEN}"`)),
    );
    holds(
      fc.property(environment, (env) => {
        try {
          parseRelayConfigWithEnvironment({}, env);
        } catch (error) {
          expect(error).toBeInstanceOf(RelayConfigError);
          expect((error as Error).message).not.toContain(TOKEN);
        }
      }),
    );
  });
});

describe('Redactor, for any text around any form of a secret', () => {
  const invisible = fc.constantFrom('', '\u202E', '\u200B', '\u2066', '\u0000', '\u001B');
  /** The token's known forms, each possibly split by an invisible character. */
  const hiddenToken = fc
    .tuple(fc.constantFrom(...secretForms(TOKEN)), fc.nat(), invisible)
    .map(([form, at, char]) => `${form.slice(0, at % form.length)}${char}${form.slice(at % form.length)}`);
  const surroundings = fc.string({ unit: 'binary' });

  it('never lets the token through, in any known form, in a log line or in words for it', () => {
    const redactor = new Redactor([TOKEN, 'other-SECRET-x']);
    holds(
      fc.property(surroundings, hiddenToken, surroundings, (before, token, after) => {
        const text = `${before}${token}${after}`;
        for (const out of [redactor.clean(text), redactor.words(text) ?? '']) {
          const lower = out.toLowerCase();
          for (const form of secretForms(TOKEN)) expect(lower).not.toContain(form.toLowerCase());
          expect(out).not.toMatch(/\p{Cf}/u);
        }
        const words = redactor.words(text);
        if (words !== null) expect(words).toMatch(/^[\x20-\x7e]*…?$/);
      }),
    );
  });
});
