/** The service's answer, as the spec defines it and as validated by `parseReport`. */
export interface RealtimeReport {
  /** Unique visitors with a pageview on the whole website in the last 3 minutes. */
  currentVisitors: number;
  websiteId: string;
  /** When the service collected the data: ISO 8601, UTC, millisecond precision. */
  timestamp: string;
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
 * Checks a parsed JSON body against the spec. Returns the report, or the reason it is not one
 * (in production builds, just the field at fault): nothing unchecked ever reaches the page.
 */
export function parseReport(body: unknown, expectedWebsiteId: string): RealtimeReport | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return DEV_MODE ? 'not a JSON object' : 'body';
  const { currentVisitors, websiteId, timestamp } = body as Record<string, unknown>;
  // `Number.isSafeInteger` is false for anything but a number.
  if (!Number.isSafeInteger(currentVisitors) || (currentVisitors as number) < 0) {
    return DEV_MODE ? 'currentVisitors is not a whole number ≥ 0' : 'currentVisitors';
  }
  if (websiteId !== expectedWebsiteId) return DEV_MODE ? 'websiteId is not the one asked for' : 'websiteId';
  if (!isIsoUtcMillis(timestamp)) return DEV_MODE ? 'timestamp is not like 2026-01-31T12:00:00.000Z' : 'timestamp';
  return { currentVisitors: currentVisitors as number, websiteId, timestamp };
}
