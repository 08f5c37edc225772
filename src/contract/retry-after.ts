/** `Retry-After` as delay-seconds (the form the relay sends), in ms; null for anything else. */
export function retryAfterDelay(headers: Headers): number | null {
  const value = headers.get('retry-after')?.trim();
  return value && /^\d+$/.test(value) ? Number(value) * 1000 : null;
}

/** `Retry-After` as delay-seconds or an HTTP date (read against the server's own `Date` if sent), in ms. */
export function parseRetryAfter(headers: Headers, now: number): number | null {
  const delay = retryAfterDelay(headers);
  if (delay !== null) return delay;
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  // Only an HTTP date ("Wed, 21 Oct 2026 07:28:00 GMT"): Date.parse also reads "-5 GMT" as a date.
  const at = /^[A-Z][a-z]{2}, \d.* GMT$/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) return null;
  const serverNow = Date.parse(headers.get('date') ?? '');
  return Math.max(0, at - (Number.isNaN(serverNow) ? now : serverNow));
}

/** `Retry-After` to send: whole seconds, rounded up and at least 1, so a client that waits this long gets in. */
export function retryAfterSeconds(atMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((atMs - nowMs) / 1000));
}
