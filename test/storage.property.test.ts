import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isConfigurationError, REALTIME_ERROR_KINDS, type RealtimeErrorKind } from '../src/contract/errors.js';
import { CLOCK_SKEW_TOLERANCE_MS, CONFIGURATION_PAUSE_MS, type FeedRecord, parseRecord } from '../src/realtime/storage.js';
import { anyTime, holds, reportLike, validReport } from './support/properties.js';

const WEBSITE_ID = 'shop-1';
const NOW = Date.UTC(2026, 10, 22, 9, 0, 0);
const DAY = 24 * 60 * 60_000;
const KINDS = [...REALTIME_ERROR_KINDS];

/** A valid report, with a relay's window (issue 32) now and then: the window must survive storage and the other tabs. */
const reportWithWindow = validReport(WEBSITE_ID).chain((report) =>
  fc.oneof(
    fc.constant(report),
    fc
      .integer({ min: 1, max: 60 })
      .filter((minutes) => minutes !== 3)
      .map((windowMinutes) => ({ ...report, windowMinutes })),
  ),
);

/** What another script of the origin, an old version or a browser with a wrong clock may have stored. */
const storedText = (() => {
  const failure = fc.oneof(
    fc.anything(),
    fc.record(
      {
        kind: fc.oneof(fc.constantFrom(...KINDS), fc.string()),
        status: fc.oneof(fc.integer(), fc.double(), fc.anything()),
        message: fc.oneof(fc.string({ maxLength: 3000 }), fc.anything()),
      },
      { requiredKeys: [] },
    ),
  );
  const record = fc.record(
    {
      report: fc.oneof(fc.constant(null), reportWithWindow, reportLike(WEBSITE_ID), fc.anything()),
      fetchedAt: anyTime(NOW),
      attemptedAt: anyTime(NOW),
      retryAt: anyTime(NOW),
      failures: fc.oneof(fc.integer(), fc.double(), fc.anything()),
      failure,
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    record.map((value) => JSON.stringify(value)),
    fc.json(),
    fc.string(),
    fc.constant(null),
  );
})();

/** A record as a feed writes it at about `NOW`. */
const writtenRecord: fc.Arbitrary<FeedRecord> = fc
  .record({
    report: fc.option(reportWithWindow),
    fetchedAt: fc.integer({ min: NOW - DAY, max: NOW }),
    attemptedAt: fc.option(fc.integer({ min: NOW - DAY, max: NOW })),
    wait: fc.integer({ min: 0, max: DAY }),
    failures: fc.integer({ min: 0, max: 100 }),
    failure: fc.option(
      fc.record({
        kind: fc.constantFrom(...KINDS.filter((kind) => kind !== 'unauthorized')),
        status: fc.option(fc.integer({ min: 100, max: 599 })),
        message: fc.string({ maxLength: 1000 }),
      }),
    ),
  })
  .map(({ report, fetchedAt, wait, failure, ...rest }) => ({
    ...rest,
    report,
    fetchedAt: report && fetchedAt,
    failure,
    retryAt: failure ? NOW + (isConfigurationError(failure.kind) ? Math.min(wait, CONFIGURATION_PAUSE_MS) : wait) : null,
  }));

describe('the stored record reader, for any stored text', () => {
  it('never throws; returns null or a record that is valid and bounded at the time of reading', () => {
    holds(
      fc.property(storedText, fc.integer({ min: NOW - DAY, max: NOW + DAY }), (text, now) => {
        const record = parseRecord(text, WEBSITE_ID, now);
        if (record === null) return;
        const { report, fetchedAt, attemptedAt, retryAt, failures, failure } = record;
        if (report) {
          expect(report.websiteId).toBe(WEBSITE_ID);
          if ('windowMinutes' in report)
            expect(Number.isInteger(report.windowMinutes) && report.windowMinutes! >= 1 && report.windowMinutes! <= 60).toBe(true);
          expect(Number.isFinite(fetchedAt)).toBe(true);
        } else expect(fetchedAt).toBeNull();
        if (attemptedAt !== null) expect(Number.isFinite(attemptedAt) && attemptedAt <= now + CLOCK_SKEW_TOLERANCE_MS).toBe(true);
        // Never a pause beyond its bound: an hour for a 404 or 400, a day for anything else.
        const longest = failure && isConfigurationError(failure.kind) ? CONFIGURATION_PAUSE_MS : DAY;
        if (retryAt !== null) expect(Number.isFinite(retryAt) && retryAt <= now + longest + CLOCK_SKEW_TOLERANCE_MS).toBe(true);
        expect(Number.isInteger(failures) && failures >= 0 && failures <= 100).toBe(true);
        if (failure) {
          expect(KINDS.filter((kind) => kind !== 'unauthorized')).toContain(failure.kind);
          if (failure.status !== null) expect(Number.isFinite(failure.status)).toBe(true);
          expect(typeof failure.message === 'string' && failure.message.length <= 1000).toBe(true);
        }
      }),
    );
  });

  it('reads back every record a feed writes, unchanged', () => {
    holds(
      fc.property(writtenRecord, (record) => {
        expect(parseRecord(JSON.stringify(record), WEBSITE_ID, NOW)).toEqual(record);
      }),
    );
  });

  it('a 404 or 400 pause read on a clock that is now right again lasts at most an hour, however far ahead it was written', () => {
    holds(
      fc.property(
        fc.constantFrom<RealtimeErrorKind>('not-found', 'bad-request'),
        fc.integer({ min: 0, max: 400 * DAY }),
        (kind, clockAheadMs) => {
          const writtenAt = NOW + clockAheadMs;
          const text = JSON.stringify({
            report: null,
            fetchedAt: null,
            attemptedAt: writtenAt,
            retryAt: writtenAt + CONFIGURATION_PAUSE_MS,
            failures: 1,
            failure: { kind, status: 404, message: 'Website not found' },
          });
          const { retryAt } = parseRecord(text, WEBSITE_ID, NOW)!;
          expect(retryAt === null || retryAt <= NOW + CONFIGURATION_PAUSE_MS + CLOCK_SKEW_TOLERANCE_MS).toBe(true);
        },
      ),
    );
  });
});
