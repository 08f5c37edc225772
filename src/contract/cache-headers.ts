import rules from './rules.json' with { type: 'json' };

// An `Age` beyond a day (`dayCeilingMs`) is no honest relay's or CDN's answer: whatever it says, the answer is
// too old to show. (A day: longer than any relay's `maxStale`, shorter than a page's `max-age` may be.)

/**
 * An answer's `Age` in ms, read as RFC 9111 §5.1 says: the first member of a list (two header lines
 * arrive as "90000, 90000"), a non-negative integer of seconds. 0 without one; `null` when it is
 * beyond a day or no such integer (`+90000`, `-5`, `1e3`, junk): an age no one can trust makes the
 * answer too old to show, never younger than it says.
 */
export function answerAge(age: string | null): number | null {
  // The first member, digits only: none (an empty Age) reads 0, anything else no match, so NaN, so null.
  const seconds = /^\s*(\d*)\s*(,|$)/.exec(age ?? '')?.[1];
  const ms = Number(seconds) * 1000;
  return ms <= rules.dayCeilingMs ? ms : null;
}

/**
 * The `max-age` of a `Cache-Control` in ms, or `null` without one (the answer then never counts
 * as stale). Capped at a day: no trusted `Age` reaches further.
 */
export function freshFor(cacheControl: string | null): number | null {
  const seconds = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '')?.[1];
  return seconds === undefined ? null : Math.min(Number(seconds) * 1000, rules.dayCeilingMs);
}
