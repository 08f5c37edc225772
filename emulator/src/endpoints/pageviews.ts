import type { Context } from 'hono';
import { isPlainObject } from '../../../server-kit/config-checks.js';
import { SPEC_MESSAGES } from '../../../src/contract/errors.js';
import { MAX_IDENTIFIER_LENGTH } from '../../../src/contract/request.js';
import type { VisitorWindow } from '../visitor-window.js';
import { errorResponse } from './error-response.js';

interface Pageview {
  readonly websiteId: string;
  readonly visitorId: string;
  readonly atMs: number;
}

/**
 * `POST /api/v1/pageviews`: public, like a tracking pixel, so no token. `body` is the request's
 * JSON whatever its Content-Type, as `navigator.sendBeacon` sends text/plain.
 */
export function recordPageview(c: Context, body: unknown, visitors: ReadonlyMap<string, VisitorWindow>, nowMs: number): Response {
  const pageview = parsePageview(body, nowMs);
  if ('error' in pageview) return errorResponse(c, 400, pageview.error);
  const window = visitors.get(pageview.websiteId);
  if (!window) return errorResponse(c, 404, SPEC_MESSAGES.websiteNotFound);
  window.record(pageview.visitorId, pageview.atMs, nowMs);
  return c.json({ accepted: true }, 202);
}

/** Validates a pageview body; fields other than the three known ones are ignored, as trackers send extras. */
function parsePageview(json: unknown, nowMs: number): Pageview | { readonly error: string } {
  if (!isPlainObject(json)) return { error: 'Request body must be a JSON object like { "websiteId": "…", "visitorId": "…" }' };
  const websiteId = checkIdentifier('websiteId', json.websiteId);
  if ('error' in websiteId) return websiteId;
  const visitorId = checkIdentifier('visitorId', json.visitorId);
  if ('error' in visitorId) return visitorId;

  const { timestamp } = json;
  if (timestamp === undefined) return { websiteId: websiteId.value, visitorId: visitorId.value, atMs: nowMs };
  const atMs = typeof timestamp === 'string' ? parseIsoDateTime(timestamp) : undefined;
  if (atMs === undefined) return { error: 'timestamp must be an ISO 8601 date-time with a time zone, like 2025-01-31T12:00:00.000Z' };
  if (atMs > nowMs) return { error: 'timestamp must not be in the future' };
  return { websiteId: websiteId.value, visitorId: visitorId.value, atMs };
}

// An empty value counts as missing, as it does for the realtime query's websiteId.
function checkIdentifier(name: string, value: unknown): { readonly value: string } | { readonly error: string } {
  if (value === undefined || value === '') return { error: `${name} is required` };
  if (typeof value !== 'string') return { error: `${name} must be a string` };
  if (value.length > MAX_IDENTIFIER_LENGTH) return { error: `${name} must be at most ${MAX_IDENTIFIER_LENGTH} characters` };
  return { value };
}

// Date and time with seconds, optional fraction, and a mandatory zone: a time without
// a zone means a different instant on every machine, so it is refused, not guessed.
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Milliseconds since the epoch of an ISO 8601 date-time such as `2025-01-31T12:00:00.000Z` or
 * `2025-01-31T13:00:00+01:00`, or `undefined`. Unlike `Date.parse`, refuses dates that do not
 * exist (`2025-02-30`).
 */
function parseIsoDateTime(text: string): number | undefined {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', zone = 'Z'] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  const offsetMinutes = parseZoneOffset(zone);
  if (offsetMinutes === undefined) return undefined;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  return Date.UTC(y, mo - 1, d, h, mi, s, millis) - offsetMinutes * 60_000;
}

function parseZoneOffset(zone: string): number | undefined {
  if (zone === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
