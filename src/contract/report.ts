/** The service's answer, as the spec defines it and as validated by `parseReport`. */
export interface RealtimeReport {
  /** Unique visitors with a pageview on the whole website in the last `windowMinutes` (3 unless said). */
  currentVisitors: number;
  websiteId: string;
  /** When the service collected the data: ISO 8601, UTC, millisecond precision. */
  timestamp: string;
  /**
   * The minutes the count covers, when a relay's source counts another window than the
   * contract's 3 (Plausible and Umami count 5): a whole number from 1 to 60. Absent means 3.
   */
  windowMinutes?: number;
}

/** The window the contract's service counts: visitors of the last 3 minutes. */
export const CONTRACT_WINDOW_MINUTES = 3;

/** The minutes a report counts: its own window, else the contract's. */
export const windowOf = (report: RealtimeReport): number => report.windowMinutes ?? CONTRACT_WINDOW_MINUTES;

/** The longest window an answer may state: an hour. A source that counts a longer one cannot be relayed as live. */
export const MAX_WINDOW_MINUTES = 60;

/**
 * A window an answer may state: a whole number of minutes from 1 to `MAX_WINDOW_MINUTES`
 * other than the contract's 3, which goes unsaid; undefined for anything else, which the answer is shown without.
 */
export function readWindowMinutes(value: unknown): number | undefined {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_WINDOW_MINUTES && value !== CONTRACT_WINDOW_MINUTES
    ? (value as number)
    : undefined;
}

import { DEV_MODE } from '../dev-mode.js';

/**
 * True for a real instant in the spec's exact form (`2026-02-30T…` is well-formed but no date):
 * one that `toISOString` writes back unchanged, which is that form when it is 24 characters long
 * (a year before 0 or after 9999 takes a sign and six digits).
 */
export function isIsoUtcMillis(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 24) return false;
  const time = Date.parse(value);
  return Number.isFinite(time) && new Date(time).toISOString() === value;
}

/**
 * Checks a parsed JSON body against the spec (and a relay's `windowMinutes`). Returns the report, or the reason it is not one
 * (in production builds, just the field at fault): nothing unchecked ever reaches the page.
 */
export function parseReport(body: unknown, expectedWebsiteId: string): RealtimeReport | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return DEV_MODE ? 'not a JSON object' : 'body';
  const { currentVisitors, websiteId, timestamp, windowMinutes } = body as Record<string, unknown>;
  // `Number.isSafeInteger` is false for anything but a number.
  if (!Number.isSafeInteger(currentVisitors) || (currentVisitors as number) < 0) {
    return DEV_MODE ? 'currentVisitors is not a whole number ≥ 0' : 'currentVisitors';
  }
  if (websiteId !== expectedWebsiteId) return DEV_MODE ? 'websiteId is not the one asked for' : 'websiteId';
  if (!isIsoUtcMillis(timestamp)) return DEV_MODE ? 'timestamp is not like 2026-01-31T12:00:00.000Z' : 'timestamp';
  const report: RealtimeReport = { currentVisitors: currentVisitors as number, websiteId, timestamp };
  // A window that is no whole number of minutes from 1 to 60 is ignored: the count still shows, as the contract's.
  const minutes = readWindowMinutes(windowMinutes);
  if (minutes) report.windowMinutes = minutes;
  return report;
}
