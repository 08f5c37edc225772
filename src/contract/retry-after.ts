import rules from './rules.json' with { type: 'json' };

// No wait we take or ask for is longer than a day (`dayCeilingMs`, the longest polling interval):
// a longer `Retry-After` is a broken server's or a wrong clock's, and is read as a day.

/** `Retry-After` as delay-seconds (the form the relay sends), in ms, at most a day; null for anything else. */
export function retryAfterDelay(headers: Headers): number | null {
  const value = headers.get('retry-after')?.trim();
  return value && /^\d+$/.test(value) ? Math.min(Number(value) * 1000, rules.dayCeilingMs) : null;
}

/** `Retry-After` as delay-seconds or an HTTP date (read against the server's own `Date` if sent), in ms, at most a day. */
export function parseRetryAfter(headers: Headers, now: number): number | null {
  const delay = retryAfterDelay(headers);
  if (delay !== null) return delay;
  const at = httpDate(headers.get('retry-after')?.trim());
  if (at === null) return null;
  const wait = at - (httpDate(headers.get('date')) ?? now);
  // A clock that reads NaN cannot date a wait: no wait, rather than NaN for every caller to trip on.
  return Number.isNaN(wait) ? null : Math.min(Math.max(0, wait), rules.dayCeilingMs);
}

const IMF_FIXDATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/;
const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';

/**
 * An HTTP date in the one form senders write (RFC 9110 §5.6.7: "Wed, 21 Oct 2026 07:28:00 GMT", a
 * leap second allowed, the day name not checked), in ms; null for anything else. Not `Date.parse`,
 * which reads "-5 GMT" or "1" as dates in 2001 and differs between engines (and from PHP's).
 */
function httpDate(value: string | null | undefined): number | null {
  const [, day, month, year, hour, minute, second] = IMF_FIXDATE.exec(value ?? '') ?? [];
  if (!day || !month || !year || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) return null;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), MONTHS.indexOf(month) / 3, Number(day));
  // The 31st of February rolls over into March: no date.
  if (date.getUTCDate() !== Number(day)) return null;
  return date.getTime() + ((Number(hour) * 60 + Number(minute)) * 60 + Number(second)) * 1000;
}

/**
 * `Retry-After` to send: whole seconds, rounded up, from 1 to `capSeconds` (the service's and the
 * emulator's a day, `dayCeilingMs`; the relay's an hour, `relayMaxRetryAfterSeconds`), so a client
 * that waits this long gets in, and a time read from a shared store that lies (1e300, NaN) still
 * makes a valid header.
 */
export function retryAfterSeconds(atMs: number, nowMs: number, capSeconds: number): number {
  const seconds = Math.ceil((atMs - nowMs) / 1000);
  return Number.isNaN(seconds) ? 1 : Math.min(capSeconds, Math.max(1, seconds));
}
