import type { After } from '../../../src/contract/timers.js';
import { Redactor } from '../redaction.js';
import type { FetchFunction } from '../upstream.js';
import type { SourceCall } from './source.js';

/**
 * The relay's means for one read of a source, redacting the relay's secrets and the source's
 * (`secrets`: built once per source, as a service-account key's many forms make a large pattern).
 */
export function sourceCall(
  parts: {
    readonly fetch: FetchFunction;
    readonly now: () => number;
    readonly timeoutMs: number;
    readonly timers?: After;
    readonly redactor: Redactor;
  },
  secrets: Redactor,
): SourceCall {
  // The source's own secrets first, then the relay's: either may know a secret the other does not.
  const redactor = secrets.and(parts.redactor);
  return {
    fetch: parts.fetch,
    now: parts.now,
    timeoutMs: parts.timeoutMs,
    timers: parts.timers,
    redactor,
    withSecrets: (...more) => sourceCall({ ...parts, redactor }, new Redactor(more)),
  };
}
