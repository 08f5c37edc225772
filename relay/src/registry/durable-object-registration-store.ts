// @ts-expect-error workerd's built-in module; typed below by the little this file uses (@cloudflare/workers-types is not a dependency).
import { DurableObject } from 'cloudflare:workers';
import { DeadlineExceeded, withDeadline } from '../../../server-kit/deadline.js';
import { HOUR_MS } from '../../../server-kit/rolling-hour.js';
import { type After, systemTimers } from '../../../src/contract/timers.js';
import type { BudgetDecision } from '../store/relay-store.js';
import type { RegistrationRecord } from './registration-record.js';
import { PAGE_SIZE, parseStoredRecord, type RegistrationPage, type RegistrationStore, storedSealed } from './registration-store.js';

/** The part of a Durable Object's state this file uses: its SQLite storage. */
interface KeeperState {
  readonly storage: {
    readonly sql: { exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, unknown>[] } };
  };
}

const DurableObjectBase = DurableObject as new (ctx: KeeperState, env: unknown) => object;

/**
 * Where a self-serving relay on Cloudflare keeps its registrations: one Durable Object (per name)
 * with SQLite storage, which outlives evictions and restarts, answering every isolate one call at a
 * time. Records arrive with their tokens already encrypted. Bind it beside `RelayCoordinator` with a
 * `new_sqlite_classes` migration.
 */
export class RegistrationKeeper extends DurableObjectBase {
  readonly #sql: KeeperState['storage']['sql'];

  constructor(ctx: KeeperState, env: unknown) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec('CREATE TABLE IF NOT EXISTS registrations (website_id TEXT PRIMARY KEY, record TEXT NOT NULL)');
    this.#sql.exec('CREATE TABLE IF NOT EXISTS version (id INTEGER PRIMARY KEY CHECK (id = 0), value INTEGER NOT NULL)');
    this.#sql.exec('INSERT OR IGNORE INTO version (id, value) VALUES (0, 0)');
    this.#sql.exec('CREATE TABLE IF NOT EXISTS hourly (counter TEXT NOT NULL, taken_at REAL NOT NULL)');
    this.#sql.exec('CREATE INDEX IF NOT EXISTS hourly_by_time ON hourly (counter, taken_at)');
    this.#sql.exec('CREATE TABLE IF NOT EXISTS remembered (key TEXT PRIMARY KEY, until_ms REAL NOT NULL)');
  }

  version(): string {
    return String(this.#sql.exec('SELECT value FROM version WHERE id = 0').toArray()[0]?.value ?? 0);
  }

  all(): Record<string, string> {
    const rows = this.#sql.exec('SELECT website_id, record FROM registrations').toArray();
    return Object.fromEntries(rows.map((row) => [String(row.website_id), String(row.record)]));
  }

  /** In website id order, after `cursor` (the last id of the page before). */
  page(cursor: string, size: number): Record<string, string> {
    const rows = this.#sql
      .exec('SELECT website_id, record FROM registrations WHERE website_id > ? ORDER BY website_id LIMIT ?', cursor, size)
      .toArray();
    return Object.fromEntries(rows.map((row) => [String(row.website_id), String(row.record)]));
  }

  get(websiteId: string): string | null {
    const [row] = this.#sql.exec('SELECT record FROM registrations WHERE website_id = ?', websiteId).toArray();
    return row === undefined ? null : String(row.record);
  }

  /**
   * Compare-and-set, checked here: the object is the single writer of its registrations and runs one
   * call at a time, so the compare and the write are one step. True when written.
   */
  put(websiteId: string, record: string, expectedSealed: string): boolean {
    if (!this.#holds(websiteId, expectedSealed)) return false;
    this.#sql.exec('INSERT OR REPLACE INTO registrations (website_id, record) VALUES (?, ?)', websiteId, record);
    this.#sql.exec('UPDATE version SET value = value + 1 WHERE id = 0');
    return true;
  }

  /** Removes the registration if it is still the expected one; true when removed. */
  remove(websiteId: string, expectedSealed: string): boolean {
    if (this.get(websiteId) === null || !this.#holds(websiteId, expectedSealed)) return false;
    this.#sql.exec('DELETE FROM registrations WHERE website_id = ?', websiteId);
    this.#sql.exec('DELETE FROM hourly WHERE counter = ?', `website:${websiteId}`);
    this.#sql.exec('UPDATE version SET value = value + 1 WHERE id = 0');
    return true;
  }

  #holds(websiteId: string, expectedSealed: string): boolean {
    return storedSealed(parseStoredRecord(this.get(websiteId))) === expectedSealed;
  }

  /** The counter's rolling hour, one row per event: (now - 1 h, now]. */
  takeHourly(counter: string, nowMs: number, limit: number): BudgetDecision {
    this.#sql.exec('DELETE FROM hourly WHERE taken_at <= ?', nowMs - HOUR_MS);
    let used = Number(this.#sql.exec('SELECT COUNT(*) AS used FROM hourly WHERE counter = ?', counter).toArray()[0]?.used);
    const taken = used < limit;
    if (taken) {
      this.#sql.exec('INSERT INTO hourly (counter, taken_at) VALUES (?, ?)', counter, nowMs);
      used += 1;
    }
    if (used < limit) return { taken, nextRoomAtMs: nowMs };
    const [slot] = this.#sql
      .exec('SELECT taken_at FROM hourly WHERE counter = ? ORDER BY taken_at LIMIT 1 OFFSET ?', counter, used - limit)
      .toArray();
    return { taken, nextRoomAtMs: Number(slot?.taken_at ?? nowMs) + HOUR_MS };
  }

  giveBackHourly(counter: string): void {
    this.#sql.exec('DELETE FROM hourly WHERE rowid = (SELECT rowid FROM hourly WHERE counter = ? ORDER BY taken_at DESC LIMIT 1)', counter);
  }

  /** One call at a time, so the look and the insert are one step; past keys are deleted first. */
  rememberOnce(key: string, untilMs: number, nowMs: number): boolean {
    this.#sql.exec('DELETE FROM remembered WHERE until_ms <= ?', nowMs);
    if (this.#sql.exec('SELECT 1 FROM remembered WHERE key = ?', key).toArray().length > 0) return false;
    this.#sql.exec('INSERT INTO remembered (key, until_ms) VALUES (?, ?)', key, untilMs);
    return true;
  }
}

/** The stub of a `RegistrationKeeper`, called over JS RPC. */
export interface RegistrationKeeperStub {
  version(): Promise<unknown>;
  all(): Promise<unknown>;
  page(cursor: string, size: number): Promise<unknown>;
  get(websiteId: string): Promise<unknown>;
  put(websiteId: string, record: string, expectedSealed: string): Promise<unknown>;
  remove(websiteId: string, expectedSealed: string): Promise<unknown>;
  takeHourly(counter: string, nowMs: number, limit: number): Promise<unknown>;
  giveBackHourly(counter: string): Promise<unknown>;
  rememberOnce(key: string, untilMs: number, nowMs: number): Promise<unknown>;
}

export interface RegistrationKeeperNamespace {
  idFromName(name: string): unknown;
  get(id: never): RegistrationKeeperStub;
}

const TIMEOUT_MS = 2_000;

/**
 * The registrations of a relay on Workers, in its `RegistrationKeeper`:
 * `createRelay({ config, store: new DurableObjectStore(env.RELAY_COORDINATOR), registrationStore: new DurableObjectRegistrationStore(env.REGISTRATIONS) })`.
 * Every call is bounded; a failure is a rejection saying which call failed.
 */
export class DurableObjectRegistrationStore implements RegistrationStore {
  readonly #namespace: RegistrationKeeperNamespace;
  readonly #id: unknown;
  readonly #timers: After;

  /** `timers` bound every call (moved by tests); the system's when absent. */
  constructor(namespace: RegistrationKeeperNamespace, options: { readonly name?: string; readonly timers?: After } = {}) {
    this.#namespace = namespace;
    this.#id = namespace.idFromName(options.name ?? 'live-visitors-relay');
    this.#timers = options.timers ?? systemTimers;
  }

  async version(): Promise<string> {
    return String(await this.#call('version', (keeper) => keeper.version()));
  }

  async all(): Promise<ReadonlyMap<string, unknown>> {
    const rows = await this.#call('all', (keeper) => keeper.all());
    if (typeof rows !== 'object' || rows === null)
      throw new Error('the Durable Object RegistrationKeeper answered all with something else');
    return new Map(Object.entries(rows as Record<string, unknown>).map(([id, text]) => [id, parseStoredRecord(text)]));
  }

  async page(cursor: string): Promise<RegistrationPage> {
    const rows = await this.#call('page', (keeper) => keeper.page(cursor, PAGE_SIZE));
    if (typeof rows !== 'object' || rows === null)
      throw new Error('the Durable Object RegistrationKeeper answered page with something else');
    const entries = Object.entries(rows as Record<string, unknown>);
    const records = new Map(entries.map(([id, text]) => [id, parseStoredRecord(text)]));
    return { records, next: entries.length < PAGE_SIZE ? '' : entries.at(-1)![0] };
  }

  async get(websiteId: string): Promise<unknown> {
    const text = await this.#call('get', (keeper) => keeper.get(websiteId));
    return text === null ? null : parseStoredRecord(text);
  }

  async put(record: RegistrationRecord, expected: RegistrationRecord | null): Promise<boolean> {
    const { websiteId } = record;
    return (await this.#call('put', (keeper) => keeper.put(websiteId, JSON.stringify(record), storedSealed(expected)))) === true;
  }

  async remove(expected: RegistrationRecord): Promise<boolean> {
    return (await this.#call('remove', (keeper) => keeper.remove(expected.websiteId, storedSealed(expected)))) === true;
  }

  async takeHourly(counter: string, nowMs: number, limit: number): Promise<BudgetDecision> {
    const decision = (await this.#call('takeHourly', (keeper) =>
      keeper.takeHourly(counter, nowMs, limit),
    )) as Partial<BudgetDecision> | null;
    if (typeof decision?.taken !== 'boolean' || typeof decision.nextRoomAtMs !== 'number') {
      throw new Error('the Durable Object RegistrationKeeper answered takeHourly with something else');
    }
    return { taken: decision.taken, nextRoomAtMs: decision.nextRoomAtMs };
  }

  async giveBackHourly(counter: string): Promise<void> {
    await this.#call('giveBackHourly', (keeper) => keeper.giveBackHourly(counter));
  }

  async rememberOnce(key: string, untilMs: number, nowMs: number): Promise<boolean> {
    const first = await this.#call('rememberOnce', (keeper) => keeper.rememberOnce(key, untilMs, nowMs));
    if (typeof first !== 'boolean') throw new Error('the Durable Object RegistrationKeeper answered rememberOnce with something else');
    return first;
  }

  async close(): Promise<void> {}

  async #call(method: string, call: (keeper: RegistrationKeeperStub) => Promise<unknown>): Promise<unknown> {
    try {
      return await withDeadline(
        this.#timers,
        TIMEOUT_MS,
        `the Durable Object RegistrationKeeper did not answer ${method} within ${TIMEOUT_MS} ms`,
        () => call(this.#namespace.get(this.#id as never)),
      );
    } catch (error) {
      if (error instanceof DeadlineExceeded) throw error;
      const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new Error(`the Durable Object RegistrationKeeper failed ${method}: ${cause}`, { cause: error });
    }
  }
}
