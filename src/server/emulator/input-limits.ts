/**
 * Size limits on everything a caller controls, so no request can make the emulator
 * hold unbounded memory or spend unbounded time.
 */

/** Longest website id, visitor id or token accepted anywhere (config, query, body, header). */
export const MAX_IDENTIFIER_LENGTH = 256;

/** Largest request body read by the pageview and control endpoints. */
export const MAX_BODY_BYTES = 4 * 1024;

/** Distinct visitors remembered per website before the oldest are evicted. */
export const DEFAULT_MAX_VISITORS_PER_WEBSITE = 100_000;

/** Highest traffic-simulator target per website. */
export const MAX_SIMULATED_VISITORS = 10_000;
