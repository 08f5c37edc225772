import rules from './rules.json' with { type: 'json' };

/**
 * Why a realtime request can fail, each kind once: the widget's and the relay's policy (retry,
 * back off, give up) follows from it, and their stored records are checked against this list.
 */
export const REALTIME_ERROR_KINDS = [
  'unauthorized',
  'bad-request',
  'not-found',
  'rate-limited',
  'server',
  'network',
  'timeout',
  'invalid-response',
] as const;

/** Why a realtime request failed: one of `REALTIME_ERROR_KINDS`. */
export type RealtimeErrorKind = (typeof REALTIME_ERROR_KINDS)[number];

/** Whether an untrusted value (a stored record's, say) is one of the kinds. */
export function isRealtimeErrorKind(value: unknown): value is RealtimeErrorKind {
  return (REALTIME_ERROR_KINDS as readonly unknown[]).includes(value);
}

/**
 * The message texts of the contract's errors (docs/realtime-api.md#errors), verbatim (the contract shows `<token>` in code formatting).
 * Read-only by type, not `Object.freeze`: a call at module level would keep them in the browser bundle.
 */
export const SPEC_MESSAGES = {
  unauthorized: rules.messageUnauthorized,
  websiteIdRequired: rules.messageWebsiteIdRequired,
  websiteNotFound: rules.messageWebsiteNotFound,
} as const;

/** The body of every error answer of the service, the emulator and the relay. */
export interface ErrorBody {
  error: string;
}

/** What an answer's status (not 2xx) means for whoever asked. A redirect is no answer of the service. */
export function errorKindForStatus(status: number): RealtimeErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 400) return 'bad-request';
  if (status === 404) return 'not-found';
  if (status === 429) return 'rate-limited';
  return status >= 500 ? 'server' : 'invalid-response';
}

/** Errors that retrying cannot fix: the configuration (token, website id) is wrong. */
export function isConfigurationError(kind: RealtimeErrorKind): boolean {
  return kind === 'unauthorized' || kind === 'not-found' || kind === 'bad-request';
}
