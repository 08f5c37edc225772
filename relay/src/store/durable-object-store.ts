// @ts-expect-error workerd's built-in module; typed below by the little this file uses (@cloudflare/workers-types is not a dependency).
import { DurableObject } from 'cloudflare:workers';
import { DeadlineExceeded, withDeadline } from '../../../server-kit/deadline.js';
import { HOUR_MS } from '../../../server-kit/rolling-hour.js';
import { type After, systemTimers } from '../../../src/contract/timers.js';
import { MemoryStore } from './memory-store.js';
import type { BudgetDecision, RelayStore, SharedWebsiteState } from './relay-store.js';

/** The part of a Durable Object's state this file uses: its SQLite storage. */
export interface CoordinatorState {
  readonly storage: {
    readonly sql: {
      exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, unknown>[] };
    };
  };
}

/** workerd's `DurableObject` base class: extending it is what lets Workers call the methods over RPC. */
const DurableObjectBase = DurableObject as new (ctx: CoordinatorState, env: unknown) => object;

/**
 * The fleet's single point of coordination on Cloudflare: one instance (per name) of this Durable
 * Object answers every Worker isolate, one call at a time, so a claim or a budget slot is given to
 * one isolate only. The websites' states live in its memory (an eviction loses them; the isolates
 * keep their own copies); the hourly budget lives in its SQLite storage, so an eviction or a
 * restart cannot reset it. Bind it with a `new_sqlite_classes` migration.
 */
export class RelayCoordinator extends DurableObjectBase {
  readonly #states = new MemoryStore();
  readonly #sql: CoordinatorState['storage']['sql'];

  constructor(ctx: CoordinatorState, env: unknown) {
    super(ctx, env);
    // Declared under `new_classes` instead of `new_sqlite_classes`, workerd throws here, saying so.
    this.#sql = ctx.storage.sql;
    this.#sql.exec('CREATE TABLE IF NOT EXISTS budget (taken_at REAL NOT NULL)');
    this.#sql.exec('CREATE INDEX IF NOT EXISTS budget_by_time ON budget (taken_at)');
  }

  read(websiteId: string): Promise<SharedWebsiteState | null> {
    return this.#states.read(websiteId);
  }

  write(websiteId: string, state: SharedWebsiteState, keepMs: number): Promise<void> {
    return this.#states.write(websiteId, state, keepMs);
  }

  claim(websiteId: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.#states.claim(websiteId, holder, ttlMs);
  }

  release(websiteId: string, holder: string): Promise<void> {
    return this.#states.release(websiteId, holder);
  }

  /** The rolling hour of `RollingHourLimit`, one row per upstream request: (now - 1 h, now]. */
  takeBudget(nowMs: number, limit: number): BudgetDecision {
    if (!Number.isFinite(nowMs) || !Number.isSafeInteger(limit) || limit < 0) {
      throw new RangeError(`takeBudget needs a finite time and a whole limit (got ${nowMs}, ${limit})`);
    }
    this.#sql.exec('DELETE FROM budget WHERE taken_at <= ?', nowMs - HOUR_MS);
    let used = Number(this.#sql.exec('SELECT COUNT(*) AS used FROM budget').toArray()[0]?.used);
    const taken = used < limit;
    if (taken) {
      this.#sql.exec('INSERT INTO budget (taken_at) VALUES (?)', nowMs);
      used += 1;
    }
    if (used < limit) return { taken, nextRoomAtMs: nowMs };
    // Room comes when the request that keeps the count at the limit leaves the hour.
    const [slot] = this.#sql.exec('SELECT taken_at FROM budget ORDER BY taken_at LIMIT 1 OFFSET ?', used - limit).toArray();
    return { taken, nextRoomAtMs: Number(slot?.taken_at) + HOUR_MS };
  }
}

/** The stub of a `RelayCoordinator`: its methods, called over JS RPC (every result a promise). */
export interface RelayCoordinatorStub {
  read(websiteId: string): Promise<unknown>;
  write(websiteId: string, state: SharedWebsiteState, keepMs: number): Promise<unknown>;
  claim(websiteId: string, holder: string, ttlMs: number): Promise<unknown>;
  release(websiteId: string, holder: string): Promise<unknown>;
  takeBudget(nowMs: number, limit: number): Promise<unknown>;
}

/** The Worker's binding of `RelayCoordinator` (a `DurableObjectNamespace`), as far as this store uses it. */
export interface RelayCoordinatorNamespace {
  idFromName(name: string): unknown;
  get(id: never): RelayCoordinatorStub;
}

export interface DurableObjectStoreOptions {
  /** Which coordinator of the namespace: one per fleet; relays that share a name share everything. */
  readonly name?: string;
  /** How long one call may take before it rejects; 1,000 ms when absent (browsers wait on it). */
  readonly timeoutMs?: number;
  /** What the calls' bound runs on (moved by tests); the system's timers when absent. */
  readonly timers?: After;
}

const DEFAULT_NAME = 'live-visitors-relay';
const DEFAULT_TIMEOUT_MS = 1_000;

/**
 * The relay's store on Cloudflare Workers: every isolate's relay reaches the one `RelayCoordinator`
 * over JS RPC. Each call is bounded, and every failure (the object threw, was unreachable, timed
 * out, or answered something else) is a rejection saying which call failed and why; the relay then
 * serves its own copy, as with any store.
 *
 * `createRelay({ config, store: new DurableObjectStore(env.RELAY_COORDINATOR) })`
 */
export class DurableObjectStore implements RelayStore {
  readonly #namespace: RelayCoordinatorNamespace;
  readonly #id: unknown;
  readonly #timeoutMs: number;
  readonly #timers: After;

  constructor(namespace: RelayCoordinatorNamespace, options: DurableObjectStoreOptions = {}) {
    this.#namespace = namespace;
    this.#id = namespace.idFromName(options.name ?? DEFAULT_NAME);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#timers = options.timers ?? systemTimers;
  }

  /** Unchecked, as every store's state: the relay reads it with `readWebsiteState` (a binding may name another class). */
  read(websiteId: string): Promise<unknown> {
    return this.#call('read', (coordinator) => coordinator.read(websiteId));
  }

  async write(websiteId: string, state: SharedWebsiteState, keepMs: number): Promise<void> {
    await this.#call('write', (coordinator) => coordinator.write(websiteId, state, keepMs));
  }

  async claim(websiteId: string, holder: string, ttlMs: number): Promise<boolean> {
    const claimed = await this.#call('claim', (coordinator) => coordinator.claim(websiteId, holder, ttlMs));
    if (typeof claimed !== 'boolean') throw answeredOtherwise('claim', claimed);
    return claimed;
  }

  async release(websiteId: string, holder: string): Promise<void> {
    await this.#call('release', (coordinator) => coordinator.release(websiteId, holder));
  }

  async takeBudget(nowMs: number, limit: number): Promise<BudgetDecision> {
    const decision = await this.#call('takeBudget', (coordinator) => coordinator.takeBudget(nowMs, limit));
    const { taken, nextRoomAtMs } = (decision ?? {}) as Partial<BudgetDecision>;
    if (typeof taken !== 'boolean' || typeof nextRoomAtMs !== 'number' || !Number.isFinite(nextRoomAtMs)) {
      throw answeredOtherwise('takeBudget', decision);
    }
    return { taken, nextRoomAtMs };
  }

  async close(): Promise<void> {}

  /**
   * A stub per call: a stub belongs to the request that made it, and the relay's calls run on
   * behalf of whichever browser's request found the answer due.
   */
  async #call(method: string, call: (coordinator: RelayCoordinatorStub) => Promise<unknown>): Promise<unknown> {
    try {
      return await withDeadline(
        this.#timers,
        this.#timeoutMs,
        `the Durable Object RelayCoordinator did not answer ${method} within ${this.#timeoutMs} ms`,
        () => call(this.#namespace.get(this.#id as never)),
      );
    } catch (error) {
      if (error instanceof DeadlineExceeded) throw error;
      const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new Error(`the Durable Object RelayCoordinator failed ${method}: ${cause}`, { cause: error });
    }
  }
}

function answeredOtherwise(method: string, value: unknown): Error {
  return new Error(
    `the Durable Object RelayCoordinator answered ${method} with something else (${typeof value}): is the binding's class RelayCoordinator?`,
  );
}
