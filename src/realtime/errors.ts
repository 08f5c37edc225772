import type { RealtimeErrorKind } from '../contract/errors.js';

export type { RealtimeErrorKind };

export interface RealtimeErrorInit {
  kind: RealtimeErrorKind;
  message: string;
  /** HTTP status of the answer, or null when there was none (network, timeout). */
  status?: number | null;
  /** How long the service asked us to wait (its `Retry-After`, on a 429 or a 503), in milliseconds. */
  retryAfterMs?: number | null;
}

/** A failed realtime request, with a message that names the cause and the fix. */
export class RealtimeError extends Error {
  override readonly name = 'RealtimeError';
  readonly kind: RealtimeErrorKind;
  readonly status: number | null;
  readonly retryAfterMs: number | null;

  constructor({ kind, message, status = null, retryAfterMs = null }: RealtimeErrorInit) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}
