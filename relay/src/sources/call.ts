import type { After } from '../../../src/contract/timers.js';
import { Redactor } from '../redaction.js';
import type { FetchFunction } from '../upstream.js';
import type { SourceCall } from './source.js';

/** A redactor that also knows a source's secrets, then hands the text to the relay's for the rest. */
class SourceRedactor extends Redactor {
  readonly #relay: Redactor;

  constructor(secrets: readonly string[], relay: Redactor) {
    super(secrets);
    this.#relay = relay;
  }

  override clean(text: string): string {
    return this.#relay.clean(super.clean(text));
  }
}

/** The relay's means for one read of a source, redacting the relay's secrets and `secrets`. */
export function sourceCall(
  parts: {
    readonly fetch: FetchFunction;
    readonly now: () => number;
    readonly timeoutMs: number;
    readonly timers?: After;
    readonly redactor: Redactor;
  },
  secrets: readonly string[],
): SourceCall {
  const redactor = secrets.length === 0 ? parts.redactor : new SourceRedactor(secrets, parts.redactor);
  return {
    fetch: parts.fetch,
    now: parts.now,
    timeoutMs: parts.timeoutMs,
    timers: parts.timers,
    redactor,
    withSecrets: (...more) => sourceCall({ ...parts, redactor }, more),
  };
}
