import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIsoUtcMillis, parseReport } from '../src/contract/report.js';
import { holds, reportLike, validReport } from './support/properties.js';

const WEBSITE_ID = 'shop-1';

describe('the report validator, for any body', () => {
  it('never throws; returns a reason, or a report whose every field the spec allows', () => {
    holds(
      fc.property(fc.oneof(fc.anything(), fc.jsonValue(), reportLike(WEBSITE_ID)), (body) => {
        const result = parseReport(body, WEBSITE_ID);
        if (typeof result === 'string') return;
        expect(Number.isSafeInteger(result.currentVisitors) && result.currentVisitors >= 0).toBe(true);
        expect(result.websiteId).toBe(WEBSITE_ID);
        expect(new Date(result.timestamp).toISOString()).toBe(result.timestamp);
        expect(Object.keys(result).sort()).toEqual(['currentVisitors', 'timestamp', 'websiteId']);
      }),
    );
  });

  it('takes every report the spec allows as it is, extra fields dropped', () => {
    holds(
      fc.property(validReport(WEBSITE_ID), fc.dictionary(fc.string(), fc.jsonValue()), (report, extra) => {
        expect(parseReport({ ...extra, ...report }, WEBSITE_ID)).toEqual(report);
      }),
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
