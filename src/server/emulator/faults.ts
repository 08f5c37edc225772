import { isPlainObject } from './config.js';

/** What the realtime endpoint can be made to do wrong, for demos and client tests. */
export const FAULT_DESCRIPTIONS = Object.freeze({
  'server-error': '500 with a JSON error body',
  'bad-gateway': '502 with an HTML page, as a proxy in front of a dead service sends',
  unavailable: '503 with an HTML maintenance page',
  slow: 'the normal answer, after delaySeconds (default 5)',
  hang: 'no answer until the client gives up or the fault ends',
  reset: '200 whose body breaks off midway: the client sees a network error',
  html: '200 with an HTML page instead of JSON',
  'invalid-json': '200 with truncated JSON',
  'invalid-count': '200 whose currentVisitors is value (default -3)',
  'invalid-timestamp': '200 whose timestamp is value (default "not-a-date")',
  'wrong-website': '200 echoing value (default "another-website") as websiteId',
  'missing-field': '200 without field (default currentVisitors)',
  'rate-limited': '429 with Retry-After: retryAfterSeconds (default 60)',
  'rate-limited-no-retry-after': '429 without Retry-After',
  unauthorized: '401 with the spec message',
  'not-found': '404 with the spec message',
  'bad-request': '400 with the spec message',
} as const);

export type FaultKind = keyof typeof FAULT_DESCRIPTIONS;
export const FAULT_KINDS = Object.keys(FAULT_DESCRIPTIONS) as FaultKind[];

export const REPORT_FIELDS = ['currentVisitors', 'websiteId', 'timestamp'] as const;
export type ReportField = (typeof REPORT_FIELDS)[number];

export interface Fault {
  readonly kind: FaultKind;
  /** The fault ends by itself after this long; it lasts until cleared when absent. */
  readonly durationSeconds?: number;
  /** `slow`: how long to wait before answering. */
  readonly delaySeconds?: number;
  /** `invalid-count`, `invalid-timestamp`, `wrong-website`: the wrong value to send. */
  readonly value?: unknown;
  /** `missing-field`: the report field left out. */
  readonly field?: ReportField;
  /** `rate-limited`: the Retry-After value. */
  readonly retryAfterSeconds?: number;
}

export const FAULT_DEFAULTS = Object.freeze({
  delaySeconds: 5,
  invalidCount: -3,
  invalidTimestamp: 'not-a-date',
  wrongWebsite: 'another-website',
  missingField: 'currentVisitors' as ReportField,
  retryAfterSeconds: 60,
});

const MAX_DURATION_SECONDS = 24 * 60 * 60;
const MAX_DELAY_SECONDS = 300;

const OPTIONS_BY_KIND: Partial<Record<FaultKind, readonly string[]>> = {
  slow: ['delaySeconds'],
  'invalid-count': ['value'],
  'invalid-timestamp': ['value'],
  'wrong-website': ['value'],
  'missing-field': ['field'],
  'rate-limited': ['retryAfterSeconds'],
};

export type FaultCheck = { readonly fault: Fault } | { readonly error: string };

/** Validates a `POST /__emulator/fault` body; options that do not fit the kind are refused, not ignored. */
export function parseFault(input: unknown): FaultCheck {
  if (!isPlainObject(input)) return { error: 'Fault must be a JSON object like { "kind": "server-error" }' };
  const { kind } = input;
  if (typeof kind !== 'string' || !FAULT_KINDS.includes(kind as FaultKind)) {
    return { error: `kind must be one of ${FAULT_KINDS.join(', ')}` };
  }
  const faultKind = kind as FaultKind;
  const allowed = ['kind', 'durationSeconds', ...(OPTIONS_BY_KIND[faultKind] ?? [])];
  const unknown = Object.keys(input).find((name) => !allowed.includes(name));
  if (unknown !== undefined) return { error: `${unknown} is not an option of the ${faultKind} fault (allowed: ${allowed.join(', ')})` };

  const fault: { -readonly [K in keyof Fault]: Fault[K] } = { kind: faultKind };
  const problems = [
    readSeconds(input, 'durationSeconds', MAX_DURATION_SECONDS, fault),
    readSeconds(input, 'delaySeconds', MAX_DELAY_SECONDS, fault),
    readRetryAfter(input, fault),
    readValue(faultKind, input, fault),
    readField(input, fault),
  ].filter((problem): problem is string => problem !== undefined);
  return problems.length > 0 ? { error: problems.join('; ') } : { fault };
}

function readSeconds(input: Record<string, unknown>, name: 'durationSeconds' | 'delaySeconds', max: number, fault: { durationSeconds?: number; delaySeconds?: number }): string | undefined {
  const value = input[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max) {
    return `${name} must be a number of seconds above 0 and at most ${max}`;
  }
  fault[name] = value;
  return undefined;
}

function readRetryAfter(input: Record<string, unknown>, fault: { retryAfterSeconds?: number }): string | undefined {
  const value = input['retryAfterSeconds'];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_DURATION_SECONDS) {
    return `retryAfterSeconds must be a whole number of seconds from 0 to ${MAX_DURATION_SECONDS}`;
  }
  fault.retryAfterSeconds = value;
  return undefined;
}

function readValue(kind: FaultKind, input: Record<string, unknown>, fault: { value?: unknown }): string | undefined {
  if (!('value' in input)) return undefined;
  const { value } = input;
  if (kind === 'invalid-count' && typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
    return 'value must not be a valid count (try -3, 1.5, "12" or null)';
  }
  if (kind === 'wrong-website' && (typeof value !== 'string' || value.length === 0)) {
    return 'value must be a non-empty string: the websiteId to echo';
  }
  fault.value = value;
  return undefined;
}

function readField(input: Record<string, unknown>, fault: { field?: ReportField }): string | undefined {
  const value = input['field'];
  if (value === undefined) return undefined;
  if (!REPORT_FIELDS.includes(value as ReportField)) return `field must be one of ${REPORT_FIELDS.join(', ')}`;
  fault.field = value as ReportField;
  return undefined;
}
