import { createHash } from 'node:crypto';
import { ErrorReply } from 'redis';
import type { After } from '../../../src/contract/timers.js';
import { RedisClusterConnection } from './redis-cluster-connection.js';
import { RedisConnection, type RedisLink, type Reply } from './redis-connection.js';
import { ROLLING_HOUR_SCRIPT, readRollingHourReply, replaceOtherType, rollingHourArguments } from './redis-rolling-hour.js';
import { parseRedisUrl } from './redis-url.js';
import type { BudgetDecision, RelayStore, SharedWebsiteState } from './relay-store.js';

export interface RedisStoreOptions {
  /** `redis://[user:password@]host[:port][/db]`, `rediss://` for TLS, or `redis+cluster://host:port,host:port` for a Redis Cluster. */
  readonly url: string;
  /** Put before every key, so relays (or other programs) can share one Redis. */
  readonly prefix: string;
  /** One line per change of the store's health, never with the URL's password; `console.warn` when absent. */
  readonly log?: (line: string) => void;
  /** How long one command may take before it rejects; 500 ms when absent. */
  readonly commandTimeoutMs?: number;
  /** What every wait on Redis runs on (moved by tests); the system's timers when absent. */
  readonly timers?: After;
}

/** `SET … NX PX` grants the claim; only its holder may delete it. */
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * The claim, `SET … NX PX`, repairing what no relay writes: a key of another type is replaced, a
 * claim without expiry is taken over (every relay's claim expires), one kept longer than a claim
 * lives is cut to that life. Returns 1 claimed, 2 taken over, 3 refused and cut, 0 refused,
 * and the replaced key's type or false. KEYS[1] the claim; ARGV: holder, the claim's life in ms.
 */
const CLAIM_SCRIPT = `${replaceOtherType('string')}
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1, replaced} end
local left = redis.call('PTTL', KEYS[1])
if left == -1 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {2, replaced}
end
if left > tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {3, replaced}
end
return {0, replaced}`;

/** Deletes the key when it holds something else than a string; 1 when it did. */
const CLEAR_NON_STRING_SCRIPT = `if redis.call('TYPE', KEYS[1])['ok'] ~= 'string' then return redis.call('DEL', KEYS[1]) end
return 0`;

interface LuaScript {
  readonly source: string;
  readonly sha1: string;
}

const lua = (source: string): LuaScript => ({ source, sha1: createHash('sha1').update(source).digest('hex') });
const RELEASE = lua(RELEASE_SCRIPT);
const TAKE_BUDGET = lua(ROLLING_HOUR_SCRIPT);
const CLAIM = lua(CLAIM_SCRIPT);
const CLEAR_NON_STRING = lua(CLEAR_NON_STRING_SCRIPT);

/**
 * The relay's store in Redis, for a fleet: one upstream request per website per interval and one
 * hourly budget across every instance that shares `prefix` on one Redis. Built on Redis's own
 * primitives: the state is `SET … PX`, the claim `SET … NX PX` released by compare-and-delete,
 * the budget a sorted set changed by one script. Every key expires.
 *
 * Commands fail fast while Redis is unreachable (no offline queue) and time out, so browsers never
 * wait on a dead Redis; the client reconnects by itself. Every failure is a rejection with a clear
 * message; nothing the server sends can crash the process.
 */
export class RedisStore implements RelayStore {
  readonly #connection: RedisLink;
  readonly #prefix: string;
  /** Keys that held something no relay writes, each logged once. */
  readonly #garbageReported = new Set<string>();

  private constructor(connection: RedisLink, prefix: string) {
    this.#connection = connection;
    this.#prefix = prefix;
  }

  /**
   * Connects to Redis. Throws for a malformed URL (never quoting its password); resolves when
   * Redis answered, or after its first failure (logged): the relay must start and serve while
   * Redis is down, and the connection keeps reconnecting.
   */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const target = parseRedisUrl(options.url);
    const log = options.log ?? ((line: string) => console.warn(line));
    const open = target.clusterSeeds === null ? RedisConnection.open : RedisClusterConnection.open;
    return new RedisStore(await open(target, log, options.commandTimeoutMs, options.timers), options.prefix);
  }

  /** The state decoded from its JSON (its text when it is not JSON), or null; a key of another type is garbage: said once, deleted, read as none. */
  async read(websiteId: string): Promise<unknown> {
    const key = this.#key('state', websiteId);
    let reply: Reply;
    try {
      reply = await this.#connection.send(['GET', key]);
    } catch (error) {
      if (!isWrongType(error)) throw this.#failure('read the state of', websiteId, error);
      const type = await this.#command('read the state of', websiteId, ['TYPE', key]);
      await this.#script('replace the state of', websiteId, CLEAR_NON_STRING, key, []);
      this.#reportGarbage(key, `a ${String(type)}`, 'deleted it (the next answer replaces it)');
      return null;
    }
    if (reply === null) return null;
    if (typeof reply !== 'string') throw this.#garbage('read the state of', websiteId, reply);
    try {
      return JSON.parse(reply) as unknown;
    } catch {
      return reply;
    }
  }

  async write(websiteId: string, state: SharedWebsiteState, keepMs: number): Promise<void> {
    const reply = await this.#command('write the state of', websiteId, [
      'SET',
      this.#key('state', websiteId),
      JSON.stringify(state),
      'PX',
      milliseconds(keepMs, 'keepMs'),
    ]);
    if (reply !== 'OK') throw this.#garbage('write the state of', websiteId, reply);
  }

  async claim(websiteId: string, holder: string, ttlMs: number): Promise<boolean> {
    const key = this.#key('claim', websiteId);
    const reply = await this.#script('claim', websiteId, CLAIM, key, [holder, milliseconds(ttlMs, 'ttlMs')]);
    if (!Array.isArray(reply) || reply.length !== 2) throw this.#garbage('claim', websiteId, reply);
    const [outcome, replaced] = reply as Reply[];
    if (typeof replaced === 'string') this.#reportGarbage(key, `a ${replaced}`, 'replaced it');
    switch (outcome) {
      case 1:
        return true;
      case 2:
        this.#reportGarbage(key, 'a claim without expiry', 'took it over');
        return true;
      case 3:
        this.#reportGarbage(key, `a claim kept longer than ${ttlMs} ms`, 'cut it to that');
        return false;
      case 0:
        return false;
      default:
        throw this.#garbage('claim', websiteId, reply);
    }
  }

  async release(websiteId: string, holder: string): Promise<void> {
    const reply = await this.#script('release the claim of', websiteId, RELEASE, this.#key('claim', websiteId), [holder]);
    if (reply !== 0 && reply !== 1) throw this.#garbage('release the claim of', websiteId, reply);
  }

  async takeBudget(nowMs: number, limit: number): Promise<BudgetDecision> {
    const args = rollingHourArguments(nowMs, limit);
    const doing = 'count an upstream request in the budget';
    const reply = await this.#script(doing, undefined, TAKE_BUDGET, `${this.#prefix}budget`, args);
    const read = readRollingHourReply(reply, nowMs, limit);
    if (!read) throw this.#garbage(doing, undefined, reply);
    if (read.replaced !== null) this.#reportGarbage(`${this.#prefix}budget`, `a ${read.replaced}`, 'replaced it');
    return read.decision;
  }

  async ping(): Promise<void> {
    const reply = await this.#command('answer a ping', undefined, ['PING']);
    if (reply !== 'PONG') throw this.#garbage('answer a ping', undefined, reply);
  }

  /** Lets commands in flight finish (a second at most), then cuts the connection. Idempotent. */
  close(): Promise<void> {
    return this.#connection.close();
  }

  /** A website's keys share its hash tag: one slot of a Redis Cluster holds all of them. */
  #key(kind: 'state' | 'claim', websiteId: string): string {
    return `${this.#prefix}${kind}:{${websiteId}}`;
  }

  async #command(doing: string, websiteId: string | undefined, args: string[]): Promise<Reply> {
    try {
      return await this.#connection.send(args);
    } catch (error) {
      throw this.#failure(doing, websiteId, error);
    }
  }

  /** EVALSHA, and EVAL once when Redis does not know the script yet (a restart forgets them). */
  async #script(doing: string, websiteId: string | undefined, script: LuaScript, key: string, args: string[]): Promise<Reply> {
    try {
      try {
        return await this.#connection.send(['EVALSHA', script.sha1, '1', key, ...args]);
      } catch (error) {
        if (!(error instanceof ErrorReply && error.message.startsWith('NOSCRIPT'))) throw error;
        return await this.#connection.send(['EVAL', script.source, '1', key, ...args]);
      }
    } catch (error) {
      throw this.#failure(doing, websiteId, error);
    }
  }

  #failure(doing: string, websiteId: string | undefined, error: unknown): Error {
    const what = websiteId === undefined ? doing : `${doing} website "${websiteId}"`;
    return new Error(`store: Redis at ${this.#connection.label} could not ${what}: ${this.#connection.describe(error)}`, { cause: error });
  }

  #garbage(doing: string, websiteId: string | undefined, reply: Reply): Error {
    const what = websiteId === undefined ? doing : `${doing} website "${websiteId}"`;
    return new Error(`store: Redis at ${this.#connection.label} answered ${describeReply(reply)} when asked to ${what}; is it Redis?`);
  }

  /** Once per key: another program writing under the prefix would otherwise fill the log. */
  #reportGarbage(key: string, what: string, done: string): void {
    if (this.#garbageReported.has(key)) return;
    this.#garbageReported.add(key);
    this.#connection.say(`store: the key ${key} held ${what}, which no relay writes; ${done}. Is another program using the prefix?`);
  }
}

function isWrongType(error: unknown): boolean {
  return error instanceof ErrorReply && error.message.startsWith('WRONGTYPE');
}

/** Redis wants whole positive milliseconds. */
function milliseconds(ms: number, name: string): string {
  if (!Number.isFinite(ms) || ms <= 0) throw new Error(`RedisStore needs ${name} above 0 (got ${ms})`);
  return String(Math.ceil(ms));
}

function describeReply(reply: Reply): string {
  if (reply === null) return 'nothing';
  if (Array.isArray(reply)) return `an array of ${reply.length}`;
  return typeof reply === 'string' ? `a string of ${reply.length} characters` : `a ${typeof reply}`;
}
