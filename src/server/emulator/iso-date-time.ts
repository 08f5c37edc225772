// Date and time with seconds, optional fraction, and a mandatory zone: a time without
// a zone means a different instant on every machine, so it is refused, not guessed.
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Milliseconds since the epoch of an ISO 8601 date-time such as
 * `2025-01-31T12:00:00.000Z` or `2025-01-31T13:00:00+01:00`, or `undefined`.
 * Unlike `Date.parse`, refuses dates that do not exist (`2025-02-30`).
 */
export function parseIsoDateTime(text: string): number | undefined {
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
