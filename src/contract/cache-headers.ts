import rules from './rules.json' with { type: 'json' };

// An `Age` beyond a day (`dayCeilingMs`) is no honest relay's or CDN's answer: whatever it says, the answer is
// too old to show. (A day: longer than any relay's `maxStale`, shorter than a page's `max-age` may be.)

/**
 * An answer's `Age` in ms: 0 without one or when it is no delta-seconds (`-5`, `1e3`, junk), and
 * `null` when it is beyond a day: too old to show, never "new". Never negative.
 */
export function answerAge(age: string | null): number | null {
  const seconds = age?.trim();
  if (!seconds || !/^\d+$/.test(seconds)) return 0;
  const ms = Number(seconds) * 1000;
  return ms > rules.dayCeilingMs ? null : ms;
}

/**
 * The `max-age` of a `Cache-Control` in ms, or `null` without one (the answer then never counts
 * as stale). Capped at a day: no trusted `Age` reaches further.
 */
export function freshFor(cacheControl: string | null): number | null {
  const seconds = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '')?.[1];
  return seconds === undefined ? null : Math.min(Number(seconds) * 1000, rules.dayCeilingMs);
}
