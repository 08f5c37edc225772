/** Why a realtime request failed: the widget's policy (retry, back off, give up) follows from it. */
export type RealtimeErrorKind =
  | 'unauthorized'
  | 'bad-request'
  | 'not-found'
  | 'rate-limited'
  | 'server'
  | 'network'
  | 'timeout'
  | 'invalid-response';

export interface RealtimeErrorInit {
  kind: RealtimeErrorKind;
  message: string;
  /** HTTP status of the answer, or null when there was none (network, timeout). */
  status?: number | null;
  /** How long the service asked us to wait (429 Retry-After), in milliseconds. */
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

/**
 * Errors that retrying cannot fix: the element's configuration is wrong, so the feed stops
 * and tells the developer which attribute to change.
 */
export function isConfigurationError(kind: RealtimeErrorKind): boolean {
  return kind === 'unauthorized' || kind === 'not-found' || kind === 'bad-request';
}
