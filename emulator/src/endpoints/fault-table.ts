import type { Context } from 'hono';
import { isPlainObject } from '../../../server-kit/config-checks.js';
import { SPEC_MESSAGES } from '../../../src/contract/errors.js';
import type { RealtimeReport } from '../../../src/contract/report.js';
import rules from '../../../src/contract/rules.json' with { type: 'json' };
import { errorResponse } from './error-response.js';
import { unauthorizedResponse } from './realtime.js';

/**
 * What the realtime endpoint can be made to do wrong, for demos and client tests: the table of
 * fault kinds (what each answers, the options it takes) and the parser of a requested fault.
 * Applying the active one to a request is faults.ts's.
 */

/** Everything one fault kind is: what it does, the options it takes (with defaults), and its behaviour. */
interface FaultEntry {
  readonly description: string;
  /** Options beyond `kind` and `durationSeconds`, each with its default. */
  readonly options?: Readonly<Partial<Record<FaultOption, unknown>>>;
  /** Refuses an option value that would make the fault pointless (a valid count for `invalid-count`). */
  readonly checkValue?: (value: unknown) => string | undefined;
  /** `slow` and `hang` delay the real answer; every other fault answers instead of it. */
  readonly behaviour: 'delay' | 'hold' | ((answer: FaultAnswerContext) => Response);
}

export type FaultOption = 'delaySeconds' | 'value' | 'field' | 'retryAfterSeconds';

export interface FaultAnswerContext {
  readonly c: Context;
  /** What the real answer would have held, so a fault that spoils one field leaves the others plausible. */
  readonly report: RealtimeReport;
  /** The fault's option, or the kind's default. */
  readonly option: (name: FaultOption) => unknown;
}

const HTML = { 'Content-Type': 'text/html; charset=utf-8' };
const JSON_TYPE = { 'Content-Type': 'application/json' };

/** What the realtime endpoint can be made to do wrong, for demos and client tests: one row per kind. */
const FAULTS = {
  'server-error': {
    description: '500 with a JSON error body',
    behaviour: ({ c }) => errorResponse(c, 500, 'Internal server error'),
  },
  'bad-gateway': {
    description: '502 with an HTML page, as a proxy in front of a dead service sends',
    behaviour: ({ c }) => c.body(htmlPage('502 Bad Gateway', 'The upstream server did not answer.'), 502, HTML),
  },
  unavailable: {
    description: '503 with an HTML maintenance page',
    behaviour: ({ c }) => c.body(htmlPage('503 Service Unavailable', 'We are down for maintenance. Please try again later.'), 503, HTML),
  },
  slow: {
    description: 'the normal answer, after delaySeconds (default 5)',
    options: { delaySeconds: 5 },
    behaviour: 'delay',
  },
  hang: {
    description: 'no answer until the client gives up or the fault ends',
    behaviour: 'hold',
  },
  reset: {
    description: '200 whose body breaks off midway: the client sees a network error',
    behaviour: ({ c, report }) => c.body(breakingOffBody(JSON.stringify(report)), 200, JSON_TYPE),
  },
  html: {
    description: '200 with an HTML page instead of JSON',
    behaviour: ({ c }) => c.body(htmlPage('Live visitors', 'This is a web page, not the API.'), 200, HTML),
  },
  'invalid-json': {
    description: '200 with truncated JSON',
    behaviour: ({ c, report }) => c.body(JSON.stringify(report).slice(0, 24), 200, JSON_TYPE),
  },
  'invalid-count': {
    description: '200 whose currentVisitors is value (default -3)',
    options: { value: -3 },
    checkValue: (value) =>
      typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
        ? 'value must not be a valid count (try -3, 1.5, "12" or null)'
        : undefined,
    behaviour: ({ c, report, option }) => c.json({ ...report, currentVisitors: option('value') }),
  },
  'invalid-timestamp': {
    description: '200 whose timestamp is value (default "not-a-date")',
    options: { value: 'not-a-date' },
    behaviour: ({ c, report, option }) => c.json({ ...report, timestamp: option('value') }),
  },
  'wrong-website': {
    description: '200 echoing value (default "another-website") as websiteId',
    options: { value: 'another-website' },
    checkValue: (value) =>
      typeof value !== 'string' || value.length === 0 ? 'value must be a non-empty string: the websiteId to echo' : undefined,
    behaviour: ({ c, report, option }) => c.json({ ...report, websiteId: option('value') }),
  },
  'missing-field': {
    description: '200 without field (default currentVisitors)',
    options: { field: 'currentVisitors' },
    behaviour: ({ c, report, option }) => c.json(withoutField(report, option('field') as ReportField)),
  },
  'rate-limited': {
    description: '429 with Retry-After: retryAfterSeconds (default 60)',
    options: { retryAfterSeconds: 60 },
    behaviour: ({ c, option }) => {
      const retryAfter = String(option('retryAfterSeconds'));
      return errorResponse(c, 429, `Rate limit exceeded. Retry in ${retryAfter} seconds.`, { 'Retry-After': retryAfter });
    },
  },
  'rate-limited-no-retry-after': {
    description: '429 without Retry-After',
    behaviour: ({ c }) => errorResponse(c, 429, 'Rate limit exceeded.'),
  },
  unauthorized: {
    description: '401 with the spec message',
    behaviour: ({ c }) => unauthorizedResponse(c, true),
  },
  'not-found': {
    description: '404 with the spec message',
    behaviour: ({ c }) => errorResponse(c, 404, SPEC_MESSAGES.websiteNotFound),
  },
  'bad-request': {
    description: '400 with the spec message',
    behaviour: ({ c }) => errorResponse(c, 400, SPEC_MESSAGES.websiteIdRequired),
  },
} as const satisfies Record<string, FaultEntry>;

export type FaultKind = keyof typeof FAULTS;
export const FAULT_KINDS = Object.keys(FAULTS) as FaultKind[];
export const FAULT_DESCRIPTIONS: Readonly<Record<FaultKind, string>> = Object.freeze(
  Object.fromEntries(FAULT_KINDS.map((kind) => [kind, FAULTS[kind].description])) as Record<FaultKind, string>,
);

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

export interface FaultState extends Fault {
  readonly startedAt: string;
  /** When a timed fault ends by itself; `null` for one that lasts until cleared. */
  readonly endsAt: string | null;
}

/** A fault lasts a day at most, and asks for no longer a wait: the contract's day ceiling. */
const MAX_DURATION_SECONDS = rules.dayCeilingMs / 1000;
const MAX_DELAY_SECONDS = 300;

/** The table's row for a kind, with its options typed for every kind alike. */
export function entryOf(kind: FaultKind): FaultEntry {
  return FAULTS[kind];
}

export type FaultCheck = { readonly fault: Fault } | { readonly error: string };

/** Validates a `POST /__emulator/fault` body; options that do not fit the kind are refused, not ignored. */
export function parseFault(input: unknown): FaultCheck {
  if (!isPlainObject(input)) return { error: 'Fault must be a JSON object like { "kind": "server-error" }' };
  const { kind } = input;
  if (typeof kind !== 'string' || !FAULT_KINDS.includes(kind as FaultKind)) {
    return { error: `kind must be one of ${FAULT_KINDS.join(', ')}` };
  }
  const faultKind = kind as FaultKind;
  const allowed = ['kind', 'durationSeconds', ...Object.keys(entryOf(faultKind).options ?? {})];
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

function readSeconds(
  input: Record<string, unknown>,
  name: 'durationSeconds' | 'delaySeconds',
  max: number,
  fault: { durationSeconds?: number; delaySeconds?: number },
): string | undefined {
  const value = input[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max) {
    return `${name} must be a number of seconds above 0 and at most ${max}`;
  }
  fault[name] = value;
  return undefined;
}

function readRetryAfter(input: Record<string, unknown>, fault: { retryAfterSeconds?: number }): string | undefined {
  const value = input.retryAfterSeconds;
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_DURATION_SECONDS) {
    return `retryAfterSeconds must be a whole number of seconds from 0 to ${MAX_DURATION_SECONDS}`;
  }
  fault.retryAfterSeconds = value;
  return undefined;
}

function readValue(kind: FaultKind, input: Record<string, unknown>, fault: { value?: unknown }): string | undefined {
  if (!('value' in input)) return undefined;
  const problem = entryOf(kind).checkValue?.(input.value);
  if (problem !== undefined) return problem;
  fault.value = input.value;
  return undefined;
}

function readField(input: Record<string, unknown>, fault: { field?: ReportField }): string | undefined {
  const value = input.field;
  if (value === undefined) return undefined;
  if (!REPORT_FIELDS.includes(value as ReportField)) return `field must be one of ${REPORT_FIELDS.join(', ')}`;
  fault.field = value as ReportField;
  return undefined;
}

// `in` rather than `??`: null is a wrong value worth sending on purpose.
export function optionOf(fault: Fault, name: FaultOption): unknown {
  return name in fault ? fault[name] : entryOf(fault.kind).options?.[name];
}

function withoutField(report: RealtimeReport, field: ReportField): Partial<RealtimeReport> {
  const copy: Partial<RealtimeReport> = { ...report };
  delete copy[field];
  return copy;
}

/** Sends the first half of `text`, then fails, so the connection is cut mid-body. */
function breakingOffBody(text: string): ReadableStream<Uint8Array> {
  const firstHalf = new TextEncoder().encode(text.slice(0, Math.ceil(text.length / 2)));
  let sent = false;
  return new ReadableStream({
    async pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(firstHalf);
        return;
      }
      // A macrotask later, so the status line and first half leave the socket before it is cut.
      await new Promise((resolve) => setTimeout(resolve, 0));
      controller.error(new Error('Connection reset by the emulator (reset fault)'));
    },
  });
}

function htmlPage(title: string, text: string): string {
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
    `<body><h1>${title}</h1><p>${text}</p></body></html>\n`
  );
}
