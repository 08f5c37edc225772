import fc from 'fast-check';

/**
 * Runs per property: a thousand inputs is where these readers' edge cases (a
 * huge digit string, NaN, a backslash after a slash) turn up, in well under a second each.
 */
export const RUNS = 1000;

/**
 * How many times each property's runs: `FC_RUNS_FACTOR=100 npx vitest run …` is the long run that
 * finds what a thousand inputs miss (issue 29 §4), without changing any test.
 */
const RUNS_FACTOR = Math.max(1, Math.floor(Number(process.env.FC_RUNS_FACTOR)) || 1);

/**
 * Checks `property` for `numRuns` generated inputs (times `FC_RUNS_FACTOR`); an async property
 * returns the promise to await. On failure fast-check's error names the seed and path with the
 * shrunk counterexample; `FC_SEED=<seed> FC_PATH=<path> npx vitest run <file>` replays exactly that run.
 */
export function holds<Ts extends [unknown, ...unknown[]]>(property: fc.IProperty<Ts>, numRuns?: number): void;
export function holds<Ts extends [unknown, ...unknown[]]>(property: fc.IAsyncProperty<Ts>, numRuns?: number): Promise<void>;
export function holds<Ts extends [unknown, ...unknown[]]>(
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  numRuns = RUNS,
): void | Promise<void> {
  const seed = process.env.FC_SEED;
  const parameters = { numRuns: numRuns * RUNS_FACTOR, ...(seed ? { seed: Number(seed), path: process.env.FC_PATH } : {}) };
  return fc.assert(property as fc.IAsyncProperty<Ts>, parameters);
}

/** Text that tries its luck as a number: digits (also far too many), signs, exponents, junk. */
export const numberLikeText = fc.oneof(
  fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
  fc.integer({ min: -1e9, max: 1e9 }).map(String),
  fc.double().map(String),
  fc.constantFrom('', ' ', '  42 ', '-0', '+5', '1e3', '0x10', '5.5', 'NaN', 'Infinity', '٣', '１２'),
  fc.string({ maxLength: 12 }),
);

/** A header value as a server may send it (tabs and visible ASCII; `Headers` refuses the rest). */
export const headerValue = fc.oneof(numberLikeText, fc.stringMatching(/^[\t\x20-\x7e]{0,40}$/)).filter(isHeaderValue);

function isHeaderValue(value: string): boolean {
  try {
    new Headers({ x: value });
    return true;
  } catch {
    return false;
  }
}

/** A time as a stored record or a broken clock may hold it. */
export const anyTime = (now: number) =>
  fc.oneof(
    fc.integer({ min: now - 10 * 86_400_000, max: now + 10 * 86_400_000 }),
    fc.double(),
    fc.constantFrom(1e300, -1e300, 4e12, 0, -1, Number.MAX_SAFE_INTEGER),
    fc.constant(null),
    fc.string({ maxLength: 20 }),
  );

/** A body shaped like a report, each field right or wrong. */
export const reportLike = (websiteId: string) =>
  fc.record(
    {
      currentVisitors: fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.bigInt().map(String), fc.constant(2 ** 53), fc.anything()),
      websiteId: fc.oneof(fc.constant(websiteId), fc.string(), fc.anything()),
      timestamp: fc.oneof(
        fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
        fc.date({ noInvalidDate: true }).map((date) => date.toISOString().replace('Z', '+00:00')),
        fc.string(),
        fc.anything(),
      ),
    },
    { requiredKeys: [] },
  );

/** A report as the spec defines it, for `websiteId`. */
export const validReport = (websiteId: string) =>
  fc.record({
    currentVisitors: fc.nat(),
    websiteId: fc.constant(websiteId),
    timestamp: fc
      .date({ noInvalidDate: true, min: new Date(0), max: new Date('9999-12-31T23:59:59.999Z') })
      .map((date) => date.toISOString()),
  });
