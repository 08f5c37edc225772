import { createHash, randomUUID } from 'node:crypto';
import { createClient, ErrorReply } from 'redis';
import { errorCode } from '../../../server-kit/error-code.js';
import { HOUR_MS } from '../../../server-kit/rolling-hour.js';
import { redact } from '../../../src/contract/service-message.js';
import { parseRedisUrl, type RedisTarget } from './redis-url.js';
import type { BudgetDecision, RelayStore, WebsiteState } from './relay-store.js';

export interface RedisStoreOptions {
  /** `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS. */
  readonly url: string;
  /** Put before every key, so relays (or other programs) can share one Redis. */
  readonly prefix: string;
  /** One line per change of the store's health, never with the URL's password; `console.warn` when absent. */
  readonly log?: (line: string) => void;
  /** How long one command may take before it rejects; 500 ms when absent. */
  readonly commandTimeoutMs?: number;
}

/** Browsers wait on the store: a hung Redis must cost them half a second, not their patience. */
const DEFAULT_COMMAND_TIMEOUT_MS = 500;
/** A Redis that takes SYN but never the connection (a dead host, a firewall) is given up on this fast. */
const CONNECT_TIMEOUT_MS = 1_000;
/**
 * Reconnection back-off: 50, 100, 200… ms up to this cap. Short, so a fleet coordinates again
 * within a second of Redis coming back, under one interval of the shortest config.
 */
const MAX_RECONNECT_DELAY_MS = 1_000;
/** How long `connect()` waits for a first answer from a server that accepted the connection. */
const FIRST_CONTACT_MS = 2 * CONNECT_TIMEOUT_MS;
/** A server that sent something else than RESP is connected to again after this long. */
const PROTOCOL_ERROR_RECONNECT_MS = 1_000;
/** How far ahead of Redis's clock a caller's time may be before Redis's own is used for the budget. */
const CLOCK_TOLERANCE_MS = 2_000;
/** `close()` lets commands in flight finish this long, then cuts the connection. */
const CLOSE_GRACE_MS = 1_000;

/** `SET … NX PX` grants the claim; only its holder may delete it. */
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

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
const BUDGET_SCRIPT = `local kind = redis.call('TYPE', KEYS[1])['ok']
local replaced = false
if kind ~= 'zset' and kind ~= 'none' then
  redis.call('DEL', KEYS[1])
  replaced = kind
end
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
const CLAIM_SCRIPT = `local kind = redis.call('TYPE', KEYS[1])['ok']
local replaced = false
if kind ~= 'string' and kind ~= 'none' then
  redis.call('DEL', KEYS[1])
  replaced = kind
end
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

type RedisClient = ReturnType<typeof newClient>;
/** What Redis answered: checked by each method before use. */
type Reply = unknown;

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
  readonly #client: RedisClient;
  readonly #target: RedisTarget;
  readonly #prefix: string;
  readonly #log: (line: string) => void;
  readonly #timeoutMs: number;
  #hasBeenReady = false;
  /** An outage was logged, so its end will be too; one line per outage, not per reconnection attempt. */
  #outageLogged = false;
  /** A server that does not speak RESP is said once per store: it would repeat every reconnection. */
  #protocolErrorLogged = false;
  #reconnectTimer: NodeJS.Timeout | undefined;
  /** Keys that held something no relay writes, each logged once. */
  readonly #garbageReported = new Set<string>();
  #closing: Promise<void> | undefined;

  private constructor(target: RedisTarget, options: RedisStoreOptions, timeoutMs: number) {
    this.#client = newClient(target, timeoutMs);
    this.#target = target;
    this.#prefix = options.prefix;
    this.#log = options.log ?? ((line) => console.warn(line));
    this.#timeoutMs = timeoutMs;
    // Without a listener an 'error' event would throw and end the process.
    this.#client.on('error', (error: unknown) => this.#onClientError(error));
    this.#client.on('ready', () => this.#onReady());
  }

  /**
   * Connects to Redis. Throws for a malformed URL (never quoting its password); resolves when
   * Redis answered, or after its first failure (logged, naming `store` and the cause): the relay
   * must start and serve while Redis is down, and the client keeps reconnecting.
   */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const target = parseRedisUrl(options.url);
    const timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    if (!(timeoutMs > 0 && timeoutMs <= 60_000)) throw new Error(`RedisStore commandTimeoutMs must be from 1 to 60000 (got ${timeoutMs})`);
    const store = new RedisStore(target, options, timeoutMs);
    await store.#firstContact();
    return store;
  }

  async #firstContact(): Promise<void> {
    const client = this.#client;
    let settle: () => void = () => {};
    const contact = new Promise<void>((resolve) => {
      settle = resolve;
    });
    client.once('ready', settle);
    client.once('error', settle);
    // A server that accepts but never finishes the handshake emits neither: wait a bounded time.
    const timer = setTimeout(() => {
      if (!this.#hasBeenReady && !this.#outageLogged) {
        this.#outageLogged = true;
        this.#say(
          `store: Redis at ${this.#target.label} did not answer within ${FIRST_CONTACT_MS} ms; the relay starts anyway and keeps waiting for it`,
        );
      }
      settle();
    }, FIRST_CONTACT_MS);
    // Rejects only when the client is closed before it ever connected; the 'error' event told why.
    client.connect().catch(() => {});
    try {
      await contact;
    } finally {
      clearTimeout(timer);
      client.off('ready', settle);
      client.off('error', settle);
    }
  }

  /** The state decoded from its JSON (its text when it is not JSON), or null; a key of another type is garbage: said once, deleted, read as none. */
  async read(websiteId: string): Promise<unknown> {
    const key = this.#key('state', websiteId);
    let reply: Reply;
    try {
      reply = await this.#send(['GET', key]);
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

  async write(websiteId: string, state: WebsiteState, keepMs: number): Promise<void> {
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
    this.#closing ??= (async () => {
      clearTimeout(this.#reconnectTimer);
      const client = this.#client;
      if (!client.isOpen) return;
      let timer: NodeJS.Timeout | undefined;
      const cut = new Promise<'cut'>((resolve) => {
        timer = setTimeout(() => resolve('cut'), CLOSE_GRACE_MS);
      });
      try {
        const how = client.isReady ? await Promise.race([client.close().then(() => 'closed' as const), cut]) : 'cut';
        if (how === 'cut' && client.isOpen) client.destroy();
      } finally {
        clearTimeout(timer);
      }
    })();
    return this.#closing;
  }

  #key(kind: 'state' | 'claim', websiteId: string): string {
    return `${this.#prefix}${kind}:${websiteId}`;
  }

  async #command(doing: string, websiteId: string | undefined, args: string[]): Promise<Reply> {
    try {
      return await this.#send(args);
    } catch (error) {
      throw this.#failure(doing, websiteId, error);
    }
  }

  /** EVALSHA, and EVAL once when Redis does not know the script yet (a restart forgets them). */
  async #script(doing: string, websiteId: string | undefined, script: LuaScript, key: string, args: string[]): Promise<Reply> {
    try {
      try {
        return await this.#send(['EVALSHA', script.sha1, '1', key, ...args]);
      } catch (error) {
        if (!(error instanceof ErrorReply && error.message.startsWith('NOSCRIPT'))) throw error;
        return await this.#send(['EVAL', script.source, '1', key, ...args]);
      }
    } catch (error) {
      throw this.#failure(doing, websiteId, error);
    }
  }

  /**
   * One command, bounded. The client's own timeout only covers the wait before the command is
   * written; a Redis that takes the command and never answers (hung, frozen) is bounded here. Its
   * late reply still arrives in order and goes to the abandoned command, so nothing gets out of step.
   * Abandoned commands stay bounded too: once the socket's buffers are full the client stops
   * writing, and its own timeout drops what waits to be written.
   */
  async #send(args: string[]): Promise<Reply> {
    const sent = this.#client.sendCommand(args);
    sent.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    });
    try {
      return await Promise.race([sent, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  #failure(doing: string, websiteId: string | undefined, error: unknown): Error {
    const what = websiteId === undefined ? doing : `${doing} website "${websiteId}"`;
    return new Error(`store: Redis at ${this.#target.label} could not ${what}: ${this.#describe(error)}`, { cause: error });
  }

  #garbage(doing: string, websiteId: string | undefined, reply: Reply): Error {
    const what = websiteId === undefined ? doing : `${doing} website "${websiteId}"`;
    return new Error(`store: Redis at ${this.#target.label} answered ${describeReply(reply)} when asked to ${what}; is it Redis?`);
  }

  /** Once per key: another program writing under the prefix would otherwise fill the log. */
  #reportGarbage(key: string, what: string, done: string): void {
    if (this.#garbageReported.has(key)) return;
    this.#garbageReported.add(key);
    this.#say(`store: the key ${key} held ${what}, which no relay writes; ${done}. Is another program using the prefix?`);
  }

  #onClientError(error: unknown): void {
    if (this.#closing) return;
    if (isProtocolError(error)) {
      this.#startOver(error);
      return;
    }
    if (this.#outageLogged) return;
    this.#outageLogged = true;
    const cause = this.#describe(error);
    const what =
      error instanceof ErrorReply
        ? `refused the connection (${cause})`
        : this.#hasBeenReady
          ? `failed (${cause})`
          : `is unreachable (${cause})`;
    this.#say(
      this.#hasBeenReady
        ? `store: Redis at ${this.#target.label} ${what}; the relay serves alone within storeDownBudget until it is back`
        : `store: Redis at ${this.#target.label} ${what}; the relay starts anyway, serving alone within storeDownBudget, and keeps reconnecting`,
    );
  }

  /**
   * Bytes that are not RESP lose the replies they stood for, and every later reply would go to the
   * wrong command (a claim could read another command's OK): drop the connection, which rejects
   * every command waiting, and connect afresh a little later.
   */
  #startOver(error: unknown): void {
    if (this.#reconnectTimer !== undefined) return;
    if (!this.#protocolErrorLogged) {
      this.#protocolErrorLogged = true;
      this.#say(
        `store: Redis at ${this.#target.label} sent something that is not Redis's protocol (${this.#describe(error)}); ` +
          `reconnecting every ${PROTOCOL_ERROR_RECONNECT_MS} ms while it does. Is it Redis?`,
      );
    }
    try {
      if (this.#client.isOpen) this.#client.destroy();
    } catch {
      // Already closed: the timer below opens it again.
    }
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (!this.#closing && !this.#client.isOpen) this.#client.connect().catch(() => {});
    }, PROTOCOL_ERROR_RECONNECT_MS);
  }

  #onReady(): void {
    this.#hasBeenReady = true;
    if (!this.#outageLogged) return;
    this.#outageLogged = false;
    this.#say(`store: Redis at ${this.#target.label} answers again; the fleet coordinates again`);
  }

  /** The cause in a few words: an error code (ECONNREFUSED…) or the client's message, never the password. */
  #describe(error: unknown): string {
    const code = errorCode(error);
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 200);
    const text = !code || message.includes(code) ? message : message === '' ? code : `${code}: ${message}`;
    return redact(text, [this.#target.password]) || 'unknown error';
  }

  #say(line: string): void {
    try {
      this.#log(redact(line, [this.#target.password]));
    } catch {
      // A broken logger must not break the store.
    }
  }
}

function isWrongType(error: unknown): boolean {
  return error instanceof ErrorReply && error.message.startsWith('WRONGTYPE');
}

/** What the client's RESP decoder throws on a byte that starts no reply. */
function isProtocolError(error: unknown): boolean {
  return error instanceof Error && !(error instanceof ErrorReply) && error.message.startsWith('Unknown RESP type');
}

function newClient(target: RedisTarget, commandTimeoutMs: number) {
  return createClient({
    socket: {
      host: target.host,
      port: target.port,
      ...(target.tls ? { tls: true as const } : {}),
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 50),
    },
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
    database: target.database,
    // Without this, commands sent while disconnected wait in memory for the reconnection.
    disableOfflineQueue: true,
    commandOptions: { timeout: commandTimeoutMs },
  });
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
