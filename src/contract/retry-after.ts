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
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  // Only an HTTP date ("Wed, 21 Oct 2026 07:28:00 GMT"): Date.parse also reads "-5 GMT" as a date.
  const at = /^[A-Z][a-z]{2}, \d.* GMT$/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) return null;
  const serverNow = Date.parse(headers.get('date') ?? '');
  const wait = at - (Number.isNaN(serverNow) ? now : serverNow);
  // A clock that reads NaN cannot date a wait: no wait, rather than NaN for every caller to trip on.
  return Number.isNaN(wait) ? null : Math.min(Math.max(0, wait), rules.dayCeilingMs);
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
