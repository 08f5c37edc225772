import { createHash } from 'node:crypto';
import { ErrorReply } from 'redis';
import { RedisConnection, type Reply } from '../store/redis-connection.js';
import { ROLLING_HOUR_SCRIPT, readRollingHourReply, rollingHourArguments } from '../store/redis-rolling-hour.js';
import { parseRedisUrl } from '../store/redis-url.js';
import type { BudgetDecision } from '../store/relay-store.js';
import type { RegistrationRecord } from './registration-record.js';
import { PAGE_SIZE, parseStoredRecord, type RegistrationPage, type RegistrationStore, storedSealed } from './registration-store.js';

/**
 * Compare-and-set of one registration, in one round trip: writes the record (or removes it, for
 * none) only if the stored one's ciphertext is still the expected one ('' for none, or a value that
 * holds none: `storedSealed`'s rule), and moves the version on. 1 when done, 0 when not.
 * KEYS: the hash, the version; ARGV: id, expected ciphertext, record ('' to remove).
 */
const COMPARE_AND_SET_SCRIPT = `local stored = redis.call('HGET', KEYS[1], ARGV[1])
local sealed = ''
if stored then
  local ok, record = pcall(cjson.decode, stored)
  if ok and type(record) == 'table' and type(record.token) == 'table' and type(record.token.sealed) == 'string' then sealed = record.token.sealed end
end
if sealed ~= ARGV[2] then return 0 end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
elseif stored then redis.call('HDEL', KEYS[1], ARGV[1])
else return 0 end
redis.call('INCR', KEYS[2])
return 1`;

const sha1 = (source: string) => createHash('sha1').update(source).digest('hex');

/**
 * Registrations in Redis, shared by the fleet: one hash (`{prefix}registrations`, website id to
 * record) and a version counter that every change moves on, so an instance reloads the hash only
 * when something changed. The two are the only keys without an expiry: a registration lasts until
 * its owner removes it. Each hourly counter (a website's budget, registration attempts) is a
 * sorted set that expires.
 */
export class RedisRegistrationStore implements RegistrationStore {
  readonly #connection: RedisConnection;
  readonly #prefix: string;

  private constructor(connection: RedisConnection, prefix: string) {
    this.#connection = connection;
    this.#prefix = prefix;
  }

  static async connect(options: { url: string; prefix: string; log?: (line: string) => void }): Promise<RedisRegistrationStore> {
    const log = options.log ?? ((line: string) => console.warn(line));
    return new RedisRegistrationStore(await RedisConnection.open(parseRedisUrl(options.url), log), options.prefix);
  }

  async version(): Promise<string> {
    const reply = await this.#send('read the registrations version', ['GET', `${this.#prefix}registrations:version`]);
    return typeof reply === 'string' ? reply : '0';
  }

  async all(): Promise<ReadonlyMap<string, unknown>> {
    const reply = await this.#send('read the registrations', ['HGETALL', `${this.#prefix}registrations`]);
    const records = new Map<string, unknown>();
    // A raw HGETALL is a flat list: field, value, field, value…
    if (!Array.isArray(reply) || reply.length % 2 !== 0)
      throw new Error(`store: Redis answered something else when asked to read the registrations`);
    for (let index = 0; index < reply.length; index += 2) records.set(String(reply[index]), parseStoredRecord(reply[index + 1]));
    return records;
  }

  /** `HSCAN`: a page never holds Redis up the way reading the whole hash at once can. */
  async page(cursor: string): Promise<RegistrationPage> {
    const doing = 'read a page of the registrations';
    const reply = await this.#send(doing, ['HSCAN', `${this.#prefix}registrations`, cursor || '0', 'COUNT', String(PAGE_SIZE)]);
    const [next, flat] = Array.isArray(reply) ? reply : [];
    if (typeof next !== 'string' || !Array.isArray(flat) || flat.length % 2 !== 0)
      throw new Error(`store: Redis answered something else when asked to ${doing}`);
    const records = new Map<string, unknown>();
    for (let index = 0; index < flat.length; index += 2) records.set(String(flat[index]), parseStoredRecord(flat[index + 1]));
    return { records, next: next === '0' ? '' : next };
  }

  async get(websiteId: string): Promise<unknown> {
    const reply = await this.#send(`read the registration of "${websiteId}"`, ['HGET', `${this.#prefix}registrations`, websiteId]);
    return reply === null ? null : parseStoredRecord(reply);
  }

  put(record: RegistrationRecord, expected: RegistrationRecord | null): Promise<boolean> {
    const { websiteId } = record;
    return this.#compareAndSet(`write the registration of "${websiteId}"`, [websiteId, storedSealed(expected), JSON.stringify(record)]);
  }

  remove(expected: RegistrationRecord): Promise<boolean> {
    const { websiteId } = expected;
    return this.#compareAndSet(`remove the registration of "${websiteId}"`, [websiteId, storedSealed(expected), '']);
  }

  /** The same rolling hour as the relay's budget (`ROLLING_HOUR_SCRIPT`): clamped to Redis's clock, a wrong-typed key replaced. */
  async takeHourly(counter: string, nowMs: number, limit: number): Promise<BudgetDecision> {
    const doing = `count one under "${counter}"`;
    const reply = await this.#script(doing, ROLLING_HOUR_SCRIPT, [`${this.#prefix}hourly:${counter}`], rollingHourArguments(nowMs, limit));
    const read = readRollingHourReply(reply, nowMs, limit);
    if (!read) throw new Error(`store: Redis answered something else when asked to ${doing}`);
    return read.decision;
  }

  /** The latest event is the highest score; whose it was does not matter, only the count. */
  async giveBackHourly(counter: string): Promise<void> {
    await this.#send(`give back one under "${counter}"`, ['ZPOPMAX', `${this.#prefix}hourly:${counter}`]);
  }

  /** `SET … NX PX`: Redis forgets the key when the time is up. */
  async rememberOnce(key: string, untilMs: number, nowMs: number): Promise<boolean> {
    const ttlMs = String(Math.max(1, Math.ceil(untilMs - nowMs)));
    const reply = await this.#send(`remember "${key}" once`, ['SET', `${this.#prefix}once:${key}`, '1', 'NX', 'PX', ttlMs]);
    return reply === 'OK';
  }

  close(): Promise<void> {
    return this.#connection.close();
  }

  async #compareAndSet(doing: string, args: string[]): Promise<boolean> {
    const keys = [`${this.#prefix}registrations`, `${this.#prefix}registrations:version`];
    const reply = await this.#script(doing, COMPARE_AND_SET_SCRIPT, keys, args);
    if (reply !== 0 && reply !== 1) throw new Error(`store: Redis answered something else when asked to ${doing}`);
    return reply === 1;
  }

  /** EVALSHA, and EVAL once when Redis does not know the script yet (a restart forgets them). */
  async #script(doing: string, source: string, keys: string[], args: string[]): Promise<Reply> {
    try {
      return await this.#connection.send(['EVALSHA', sha1(source), String(keys.length), ...keys, ...args]);
    } catch (error) {
      if (!(error instanceof ErrorReply && error.message.startsWith('NOSCRIPT'))) throw this.#failure(doing, error);
      return this.#send(doing, ['EVAL', source, String(keys.length), ...keys, ...args]);
    }
  }

  async #send(doing: string, args: string[]): Promise<Reply> {
    try {
      return await this.#connection.send(args);
    } catch (error) {
      throw this.#failure(doing, error);
    }
  }

  #failure(doing: string, error: unknown): Error {
    return new Error(`store: Redis at ${this.#connection.label} could not ${doing}: ${this.#connection.describe(error)}`, { cause: error });
  }
}
