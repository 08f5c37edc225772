import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryAfterDelay, retryAfterSeconds } from '../src/contract/retry-after.js';
import rules from '../src/contract/rules.json' with { type: 'json' };
import { headerValue, holds, numberLikeText } from './support/properties.js';

const httpDate = fc.date({ noInvalidDate: true }).map((date) => date.toUTCString());
const retryAfter = fc.oneof(headerValue, numberLikeText, httpDate);
const headers = (fields: Record<string, string | null>) =>
  new Headers(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== null));

/** A wait that a caller can use as it is: a whole, finite number of ms from 0 to a day. */
function isBoundedWait(ms: number): boolean {
  return Number.isFinite(ms) && ms >= 0 && ms <= rules.dayCeilingMs;
}

describe('Retry-After, for any value a server sends', () => {
  it('is read as null or a wait from 0 to a day, never NaN, never negative', () => {
    holds(
      fc.property(fc.option(retryAfter), fc.option(fc.oneof(httpDate, headerValue)), fc.double(), (value, date, now) => {
        const sent = headers({ 'retry-after': value, date });
        const delay = retryAfterDelay(sent);
        if (delay !== null) expect(isBoundedWait(delay) && Number.isInteger(delay / 1000)).toBe(true);
        const wait = parseRetryAfter(sent, now);
        if (wait !== null) expect(isBoundedWait(wait)).toBe(true);
        // The delay-seconds form reads the same both ways.
        if (delay !== null) expect(wait).toBe(delay);
      }),
    );
  });

  it('an HTTP date is never read as NaN, whatever the clock reads (issue 29 §4: no Date header, clock NaN)', () => {
    const clocks = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e300, -1e300, 0];
    for (const now of clocks) {
      for (const date of [null, 'not a date']) {
        const wait = parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 1970 00:00:00 GMT', date }), now);
        if (wait !== null) expect(isBoundedWait(wait), `clock ${now}, Date ${date}: ${wait}`).toBe(true);
      }
    }
    // A clock that reads nothing cannot date a wait: no wait, rather than one made up.
    expect(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 1970 00:00:00 GMT' }), Number.NaN)).toBeNull();
  });

  it('is sent as a whole number of seconds from 1 to a day, whatever times it is computed from', () => {
    const time = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(1e300, -1e300, 4e12, Number.NaN, Number.POSITIVE_INFINITY));
    holds(
      fc.property(time, time, (atMs, nowMs) => {
        const seconds = retryAfterSeconds(atMs, nowMs, rules.dayCeilingMs / 1000);
        expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= rules.dayCeilingMs / 1000).toBe(true);
        expect(String(seconds)).toMatch(/^[1-9]\d*$/);
      }),
    );
  });

  it('a time to send within the day is rounded up, so a client that waits that long gets in', () => {
    holds(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 1, max: rules.dayCeilingMs }), (nowMs, aheadMs) => {
        expect(retryAfterSeconds(nowMs + aheadMs, nowMs, rules.dayCeilingMs / 1000) * 1000).toBeGreaterThanOrEqual(aheadMs);
      }),
    );
  });
});
