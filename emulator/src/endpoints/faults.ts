import type { Context, MiddlewareHandler } from 'hono';
import type { UnofficialStatusCode } from 'hono/utils/http-status';
import type { RealtimeReport } from '../../../src/contract/report.js';
import { type Cancel, type Timers, wait } from '../../../src/contract/timers.js';
import { errorResponse } from './error-response.js';
import { entryOf, type Fault, type FaultState, optionOf, parseFault } from './fault-table.js';

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

/** `POST /__emulator/fault`: replaces the active fault. */
export function setFault(c: Context, faults: FaultSwitch, body: unknown): Response {
  const parsed = parseFault(body);
  if ('error' in parsed) return errorResponse(c, 400, parsed.error);
  faults.set(parsed.fault);
  return c.json({ fault: faults.state });
}
