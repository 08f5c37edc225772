import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatCountTime, writeTimesInDigits, writeTimesInOwnStyle } from '../src/count-time.js';

// A zone away from UTC, so a time in UTC instead of the page's local time would show.
let zone: string | undefined;
beforeEach(() => {
  zone = process.env.TZ;
  process.env.TZ = 'America/New_York';
});
afterEach(() => {
  process.env.TZ = zone;
  if (zone === undefined) delete process.env.TZ;
  writeTimesInDigits();
});

const AFTERNOON = new Date('2026-11-22T19:04:00.000Z');
const MORNING = new Date('2026-11-22T14:09:00.000Z');

describe('formatCountTime', () => {
  it('writes the local time in 24-hour digits until someone opens a disclosure, whatever the language', () => {
    expect(formatCountTime(AFTERNOON, 'en')).toBe('14:04');
    expect(formatCountTime(MORNING, 'en')).toBe('09:09');
    expect(formatCountTime(AFTERNOON, 'ko')).toBe('14:04');
  });

  it("then writes it in each language's own way", () => {
    writeTimesInOwnStyle();
    expect(formatCountTime(AFTERNOON, 'en')).toBe(new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(AFTERNOON));
    expect(formatCountTime(AFTERNOON, 'en')).toMatch(/^2:04\sPM$/);
    expect(formatCountTime(AFTERNOON, 'de')).toBe('14:04');
  });
});
