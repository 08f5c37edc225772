/**
 * An `Age` beyond this is no honest relay's or CDN's answer: whatever it says, the answer is too
 * old to show. (A day: longer than any relay's `maxStale`, shorter than a page's `max-age` may be.)
 */
export const MAX_TRUSTED_AGE_MS = 24 * 60 * 60_000;

/**
 * An answer's `Age` in ms: 0 without one or when it is no delta-seconds (`-5`, `1e3`, junk), and
 * `null` when it is beyond `MAX_TRUSTED_AGE_MS`: too old to show, never "new". Never negative.
 */
export function answerAge(age: string | null): number | null {
  const seconds = age?.trim();
  if (!seconds || !/^\d+$/.test(seconds)) return 0;
  const ms = Number(seconds) * 1000;
  return ms > MAX_TRUSTED_AGE_MS ? null : ms;
}

/**
 * The `max-age` of a `Cache-Control` in ms, or `null` without one (the answer then never counts
 * as stale). Capped at `MAX_TRUSTED_AGE_MS`: no trusted `Age` reaches further.
 */
export function freshFor(cacheControl: string | null): number | null {
  const seconds = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '')?.[1];
  return seconds === undefined ? null : Math.min(Number(seconds) * 1000, MAX_TRUSTED_AGE_MS);
}
