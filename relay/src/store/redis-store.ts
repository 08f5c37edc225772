import { createHash, randomUUID } from 'node:crypto';
import { ErrorReply } from 'redis';
import { HOUR_MS } from '../../../server-kit/rolling-hour.js';
import rules from '../../../src/contract/rules.json' with { type: 'json' };
import type { After } from '../../../src/contract/timers.js';
import { RedisConnection, type Reply } from './redis-connection.js';
import { parseRedisUrl } from './redis-url.js';
import type { BudgetDecision, RelayStore, SharedWebsiteState } from './relay-store.js';

export interface RedisStoreOptions {
  /** `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS. */
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

/** How far ahead of Redis's clock a caller's time may be before Redis's own is used for the budget. */
const CLOCK_TOLERANCE_MS = rules.clockToleranceMs;
/** `SET … NX PX` grants the claim; only its holder may delete it. */
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Lua that deletes KEYS[1] when it holds another type than `expected` (garbage no relay writes, which
 * every command on it would refuse) and leaves `replaced` the type it held, or false.
 */
const replaceOtherType = (expected: 'zset' | 'string') => `local kind = redis.call('TYPE', KEYS[1])['ok']
local replaced = false
if kind ~= '${expected}' and kind ~= 'none' then
  redis.call('DEL', KEYS[1])
  replaced = kind
end`;

/**
 * The fleet's rolling hour, atomically. Times are the caller's, but never ahead of Redis's own
 * clock by more than a little: an instance whose clock runs fast would otherwise date its requests
 * in the future (kept too long) and forget everyone else's as over an hour old. Then: replace a key
 * of another type, forget requests an hour old or older and any dated more than an hour ahead
 * (garbage that would spend the budget for ever), count the rest, add this one when under the
 * limit, keep the key an hour. Returns taken (0/1), the count, when at the limit the time (as
 * Redis's exact text) of the request whose leaving makes room, the replaced key's type or false,
 * and the time used (so the caller can turn the slot into its own clock).
 * KEYS[1] the sorted set; ARGV: the caller's now, the limit, a unique member, 1 h in ms, the tolerance in ms.
 */
const BUDGET_SCRIPT = `${replaceOtherType('zset')}
local hour = tonumber(ARGV[4])
local clock = redis.call('TIME')
local now = math.min(tonumber(ARGV[1]), tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000) + tonumber(ARGV[5]))
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - hour)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '(' .. string.format('%.17g', now + hour), '+inf')
local used = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[2])
local taken = 0
if used < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  used = used + 1
  taken = 1
end
redis.call('PEXPIRE', KEYS[1], hour)
local at = string.format('%.17g', now)
if used < limit then return {taken, used, false, replaced, at} end
local slot = redis.call('ZRANGE', KEYS[1], used - limit, used - limit, 'WITHSCORES')
return {taken, used, slot[2] or false, replaced, at}`;

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
const TAKE_BUDGET = lua(BUDGET_SCRIPT);
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
  readonly #connection: RedisConnection;
  readonly #prefix: string;
  /** Keys that held something no relay writes, each logged once. */
  readonly #garbageReported = new Set<string>();

  private constructor(connection: RedisConnection, prefix: string) {
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
    return new RedisStore(await RedisConnection.open(target, log, options.commandTimeoutMs, options.timers), options.prefix);
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
    if (!Number.isFinite(nowMs)) throw new Error(`RedisStore.takeBudget needs a finite time (got ${nowMs})`);
    if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`RedisStore.takeBudget needs a whole limit (got ${limit})`);
    const reply = await this.#script('count an upstream request in the budget', undefined, TAKE_BUDGET, `${this.#prefix}budget`, [
      String(nowMs),
      String(limit),
      // Unique, so two requests at the same millisecond count twice.
      randomUUID(),
      String(HOUR_MS),
      String(CLOCK_TOLERANCE_MS),
    ]);
    if (!Array.isArray(reply) || reply.length !== 5) throw this.#garbage('count an upstream request in the budget', undefined, reply);
    const [taken, used, slotText, replaced, usedNowText] = reply as Reply[];
    if (typeof replaced === 'string') this.#reportGarbage(`${this.#prefix}budget`, `a ${replaced}`, 'replaced it');
    const slotMs = typeof slotText === 'string' ? Number(slotText) : Number.NaN;
    const usedNowMs = typeof usedNowText === 'string' ? Number(usedNowText) : Number.NaN;
    if (
      (taken !== 0 && taken !== 1) ||
      typeof used !== 'number' ||
      (slotText !== null && !Number.isFinite(slotMs)) ||
      !Number.isFinite(usedNowMs)
    ) {
      throw this.#garbage('count an upstream request in the budget', undefined, reply);
    }
    const hasRoom = used < limit;
    // At the limit with no slot to wait for (a limit of 0): an hour, as for a request just counted.
    // The slot is on the time the script used: moved onto the caller's clock.
    const nextRoomAtMs = hasRoom ? nowMs : slotText === null ? nowMs + HOUR_MS : nowMs + (slotMs + HOUR_MS - usedNowMs);
    return { taken: taken === 1, nextRoomAtMs };
  }

  /** Lets commands in flight finish (a second at most), then cuts the connection. Idempotent. */
  close(): Promise<void> {
    return this.#connection.close();
  }

  #key(kind: 'state' | 'claim', websiteId: string): string {
    return `${this.#prefix}${kind}:${websiteId}`;
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
