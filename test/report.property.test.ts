import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIsoUtcMillis, parseReport, type RealtimeReport, readWindowMinutes, windowOf } from '../src/contract/report.js';
import { holds, reportLike, validReport } from './support/properties.js';

const WEBSITE_ID = 'shop-1';

/** The rule, written out independently of the code: a whole number of minutes, 1 to 60, and not 3 (the contract's, unsaid). */
const isStatedWindow = (value: unknown): value is number =>
  typeof value === 'number' && value % 1 === 0 && value >= 1 && value <= 60 && value !== 3;

describe('the report validator, for any body', () => {
  it('never throws; returns a reason, or a report whose every field the spec allows', () => {
    holds(
      fc.property(fc.oneof(fc.anything(), fc.jsonValue(), reportLike(WEBSITE_ID)), (body) => {
        const result = parseReport(body, WEBSITE_ID);
        if (typeof result === 'string') return;
        expect(Number.isSafeInteger(result.currentVisitors) && result.currentVisitors >= 0).toBe(true);
        expect(result.websiteId).toBe(WEBSITE_ID);
        expect(new Date(result.timestamp).toISOString()).toBe(result.timestamp);
        const { windowMinutes, ...contractFields } = result;
        expect(Object.keys(contractFields).sort()).toEqual(['currentVisitors', 'timestamp', 'websiteId']);
        if ('windowMinutes' in result) expect(isStatedWindow(windowMinutes)).toBe(true);
      }),
    );
  });

  it('takes every report the spec allows as it is, extra fields dropped', () => {
    holds(
      fc.property(
        validReport(WEBSITE_ID),
        fc.dictionary(
          fc.string().filter((key) => key !== 'windowMinutes'),
          fc.jsonValue(),
        ),
        (report, extra) => {
          const result = parseReport({ ...extra, ...report }, WEBSITE_ID);
          expect(result).toEqual(report);
          expect(Object.keys(result).sort()).toEqual(Object.keys(report).sort());
        },
      ),
    );
  });

  it("shows the count whatever windowMinutes holds, keeping only a whole 1 to 60 that is not the contract's 3", () => {
    holds(
      fc.property(
        validReport(WEBSITE_ID),
        fc.oneof(fc.integer({ min: -5, max: 70 }), fc.double(), fc.anything()),
        (report, windowMinutes) => {
          const result = parseReport({ ...report, windowMinutes }, WEBSITE_ID);
          const kept = isStatedWindow(windowMinutes) ? { windowMinutes } : {};
          expect(result).toEqual({ ...report, ...kept });
          expect(Object.keys(result).sort()).toEqual(Object.keys({ ...report, ...kept }).sort());
          expect(readWindowMinutes(windowMinutes)).toBe(isStatedWindow(windowMinutes) ? windowMinutes : undefined);
          expect(windowOf(result as RealtimeReport)).toBe(isStatedWindow(windowMinutes) ? windowMinutes : 3);
        },
      ),
    );
  });

  it("refuses another website's report", () => {
    holds(
      fc.property(
        validReport(WEBSITE_ID),
        fc.string().filter((id) => id !== WEBSITE_ID),
        (report, other) => {
          expect(typeof parseReport(report, other)).toBe('string');
        },
      ),
    );
  });

  it('a timestamp is taken only in the exact form toISOString writes', () => {
    holds(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
          fc.anything(),
        ),
        (value) => {
          if (isIsoUtcMillis(value)) expect(new Date(value).toISOString()).toBe(value);
        },
      ),
    );
  });
});
