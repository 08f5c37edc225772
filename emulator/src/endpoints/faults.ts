import type { Context, MiddlewareHandler } from 'hono';
import type { UnofficialStatusCode } from 'hono/utils/http-status';
import { isPlainObject } from '../../../server-kit/config-checks.js';
import { SPEC_MESSAGES } from '../../../src/contract/errors.js';
import type { RealtimeReport } from '../../../src/contract/report.js';
import { type Cancel, type Timers, wait } from '../../../src/contract/timers.js';
import { errorResponse } from './error-response.js';
import { unauthorizedResponse } from './realtime.js';

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

type FaultOption = 'delaySeconds' | 'value' | 'field' | 'retryAfterSeconds';

interface FaultAnswerContext {
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

const MAX_DURATION_SECONDS = 24 * 60 * 60;
const MAX_DELAY_SECONDS = 300;

function entryOf(kind: FaultKind): FaultEntry {
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

/**
 * Holds the one active fault, ends timed faults, and parks the requests that a `hang` or `slow`
 * fault keeps waiting — always releasing them when their client gives up, so a waiting request
 * never outlives its connection.
 */
export class FaultSwitch {
  readonly #now: () => number;
  readonly #timers: Timers;
  readonly #onChange = new Set<() => void>();
  #fault: Fault | undefined;
  #startedAtMs = 0;
  #endsAtMs: number | undefined;
  #cancelExpiry: Cancel | undefined;
  #waitingRequests = 0;

  constructor(now: () => number, timers: Timers) {
    this.#now = now;
    this.#timers = timers;
  }

  get current(): Fault | undefined {
    // The clock is checked as well as the timer, so a fake clock moved past the end ends it too.
    if (this.#endsAtMs !== undefined && this.#now() >= this.#endsAtMs) this.clear();
    return this.#fault;
  }

  get state(): FaultState | null {
    const fault = this.current;
    if (!fault) return null;
    return {
      ...fault,
      startedAt: new Date(this.#startedAtMs).toISOString(),
      endsAt: this.#endsAtMs === undefined ? null : new Date(this.#endsAtMs).toISOString(),
    };
  }

  /** Requests currently held by a `hang` or `slow` fault. */
  get waitingRequests(): number {
    return this.#waitingRequests;
  }

  set(fault: Fault): void {
    this.#cancelExpiry?.();
    this.#fault = fault;
    this.#startedAtMs = this.#now();
    this.#endsAtMs = undefined;
    this.#cancelExpiry = undefined;
    if (fault.durationSeconds !== undefined) {
      const durationMs = fault.durationSeconds * 1000;
      this.#endsAtMs = this.#startedAtMs + durationMs;
      this.#cancelExpiry = this.#timers.after(durationMs, () => this.clear());
    }
    this.#notifyChange();
  }

  clear(): void {
    this.#cancelExpiry?.();
    this.#cancelExpiry = undefined;
    const hadFault = this.#fault !== undefined;
    this.#fault = undefined;
    this.#endsAtMs = undefined;
    if (hadFault) this.#notifyChange();
  }

  /** `hang`: resolves when the fault is cleared, replaced or ends, or when `signal` aborts. */
  holdUntilChange(signal: AbortSignal): Promise<'changed' | 'aborted'> {
    if (signal.aborted) return Promise.resolve('aborted');
    return this.#counted(
      new Promise((resolve) => {
        const onChange = () => {
          signal.removeEventListener('abort', onAbort);
          resolve('changed');
        };
        const onAbort = () => {
          this.#onChange.delete(onChange);
          resolve('aborted');
        };
        this.#onChange.add(onChange);
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    );
  }

  /** `slow`: resolves after `delayMs`, or as soon as `signal` aborts. */
  delay(delayMs: number, signal: AbortSignal): Promise<'elapsed' | 'aborted'> {
    return this.#counted(wait(this.#timers, delayMs, signal));
  }

  async #counted<T>(waiting: Promise<T>): Promise<T> {
    this.#waitingRequests += 1;
    try {
      return await waiting;
    } finally {
      this.#waitingRequests -= 1;
    }
  }

  #notifyChange(): void {
    const listeners = [...this.#onChange];
    this.#onChange.clear();
    for (const listener of listeners) listener();
  }
}

export interface ApplyFaultOptions {
  readonly faults: FaultSwitch;
  /** Aborts when the emulator is disposed, releasing every request a fault holds. */
  readonly shutdown: AbortSignal;
  /** What the real answer would hold, so a fault that spoils one field leaves the others plausible. */
  readonly report: (websiteId: string) => RealtimeReport;
}

/**
 * Runs before the realtime endpoint. Without a fault the endpoint answers; `slow` and `hang` only
 * delay it; every other fault answers instead, whatever the token or query, and counts nothing.
 */
export function applyFault({ faults, shutdown, report }: ApplyFaultOptions): MiddlewareHandler {
  return async (c, next) => {
    // A loop because a released `hang` must look again: the fault may have been replaced.
    for (;;) {
      const fault = faults.current;
      if (!fault) return next();
      // Only for the faults that hold a request: on Node 20, AbortSignal.any with the emulator's
      // lifelong shutdown signal keeps every combined signal alive, a leak on the hot path.
      const signal = AbortSignal.any([c.req.raw.signal, shutdown]);
      const { behaviour } = entryOf(fault.kind);
      if (behaviour === 'hold') {
        if ((await faults.holdUntilChange(signal)) === 'aborted') return abandonedResponse(c);
        continue;
      }
      if (behaviour === 'delay') {
        const delayMs = Number(optionOf(fault, 'delaySeconds')) * 1000;
        if ((await faults.delay(delayMs, signal)) === 'aborted') return abandonedResponse(c);
        return next();
      }
      const websiteId = new URL(c.req.url).searchParams.get('websiteId') ?? '';
      return behaviour({ c, report: report(websiteId), option: (name) => optionOf(fault, name) });
    }
  };
}

// Nobody reads this answer when the client left; it only settles the handler's promise.
function abandonedResponse(c: Context): Response {
  return c.req.raw.signal.aborted
    ? errorResponse(c, 499 as UnofficialStatusCode, 'Client closed the request')
    : errorResponse(c, 503, 'The emulator is shutting down');
}

// `in` rather than `??`: null is a wrong value worth sending on purpose.
function optionOf(fault: Fault, name: FaultOption): unknown {
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

/** `POST /__emulator/fault`: replaces the active fault. */
export function setFault(c: Context, faults: FaultSwitch, body: unknown): Response {
  const parsed = parseFault(body);
  if ('error' in parsed) return errorResponse(c, 400, parsed.error);
  faults.set(parsed.fault);
  return c.json({ fault: faults.state });
}
