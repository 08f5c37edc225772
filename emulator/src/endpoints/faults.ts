import type { Context, MiddlewareHandler } from 'hono';
import type { UnofficialStatusCode } from 'hono/utils/http-status';
import { isPlainObject } from '../../../server-kit/config-checks.js';
import { type Cancel, type Timers, wait } from '../../../server-kit/timers.js';
import { type ErrorBody, SPEC_MESSAGES } from '../../../src/contract/errors.js';
import type { RealtimeReport } from '../../../src/contract/report.js';
import { unauthorized } from './realtime.js';

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

export interface FaultState extends Fault {
  readonly startedAt: string;
  /** When a timed fault ends by itself; `null` for one that lasts until cleared. */
  readonly endsAt: string | null;
}

const FAULT_DEFAULTS = Object.freeze({
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
      if (fault.kind === 'hang') {
        if ((await faults.holdUntilChange(signal)) === 'aborted') return abandoned(c);
        continue;
      }
      if (fault.kind === 'slow') {
        const delayMs = (fault.delaySeconds ?? FAULT_DEFAULTS.delaySeconds) * 1000;
        if ((await faults.delay(delayMs, signal)) === 'aborted') return abandoned(c);
        return next();
      }
      return faultAnswer(c, fault, report(new URL(c.req.url).searchParams.get('websiteId') ?? ''));
    }
  };
}

// Nobody reads this answer when the client left; it only settles the handler's promise.
function abandoned(c: Context): Response {
  return c.req.raw.signal.aborted
    ? c.json({ error: 'Client closed the request' } satisfies ErrorBody, 499 as UnofficialStatusCode)
    : c.json({ error: 'The emulator is shutting down' } satisfies ErrorBody, 503);
}

const HTML = { 'Content-Type': 'text/html; charset=utf-8' };
const JSON_TYPE = { 'Content-Type': 'application/json' };

/** The answer a fault gives instead of the real one; `report` is what the real one would have held. */
function faultAnswer(c: Context, fault: Fault, report: RealtimeReport): Response {
  const error = (status: 400 | 404 | 429 | 500, message: string, headers?: Record<string, string>) =>
    c.json({ error: message } satisfies ErrorBody, status, headers);
  switch (fault.kind) {
    case 'server-error':
      return error(500, 'Internal server error');
    case 'bad-gateway':
      return c.body(htmlPage('502 Bad Gateway', 'The upstream server did not answer.'), 502, HTML);
    case 'unavailable':
      return c.body(htmlPage('503 Service Unavailable', 'We are down for maintenance. Please try again later.'), 503, HTML);
    case 'reset':
      return c.body(breakingOffBody(JSON.stringify(report)), 200, JSON_TYPE);
    case 'html':
      return c.body(htmlPage('Live visitors', 'This is a web page, not the API.'), 200, HTML);
    case 'invalid-json':
      return c.body(JSON.stringify(report).slice(0, 24), 200, JSON_TYPE);
    case 'invalid-count':
      return c.json({ ...report, currentVisitors: valueOr(fault, FAULT_DEFAULTS.invalidCount) });
    case 'invalid-timestamp':
      return c.json({ ...report, timestamp: valueOr(fault, FAULT_DEFAULTS.invalidTimestamp) });
    case 'wrong-website':
      return c.json({ ...report, websiteId: valueOr(fault, FAULT_DEFAULTS.wrongWebsite) });
    case 'missing-field':
      return c.json(withoutField(report, fault.field ?? FAULT_DEFAULTS.missingField));
    case 'rate-limited': {
      const retryAfter = String(fault.retryAfterSeconds ?? FAULT_DEFAULTS.retryAfterSeconds);
      return error(429, `Rate limit exceeded. Retry in ${retryAfter} seconds.`, { 'Retry-After': retryAfter });
    }
    case 'rate-limited-no-retry-after':
      return error(429, 'Rate limit exceeded.');
    case 'unauthorized':
      return unauthorized(c, true);
    case 'not-found':
      return error(404, SPEC_MESSAGES.websiteNotFound);
    case 'bad-request':
      return error(400, SPEC_MESSAGES.websiteIdRequired);
    case 'slow':
    case 'hang':
      throw new Error(`The ${fault.kind} fault delays the real answer; it has no answer of its own`);
  }
}

// `'value' in fault` rather than `??`: null is a wrong value worth sending on purpose.
function valueOr(fault: Fault, fallback: unknown): unknown {
  return 'value' in fault ? fault.value : fallback;
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
  if ('error' in parsed) return c.json({ error: parsed.error } satisfies ErrorBody, 400);
  faults.set(parsed.fault);
  return c.json({ fault: faults.state });
}
