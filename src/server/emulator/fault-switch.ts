import type { Fault } from './faults.js';
import { wait, type Cancel, type Timers } from './timers.js';

export interface FaultState extends Fault {
  readonly startedAt: string;
  /** When a timed fault ends by itself; `null` for one that lasts until cleared. */
  readonly endsAt: string | null;
}

/**
 * Holds the one active fault, ends timed faults, and parks the requests that a
 * `hang` or `slow` fault keeps waiting — always releasing them when their client
 * gives up, so a waiting request never outlives its connection.
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
