import { randomUUID } from 'node:crypto';
import { HOUR_MS } from '../../../server-kit/rolling-hour.js';
import rules from '../../../src/contract/rules.json' with { type: 'json' };
import type { Reply } from './redis-connection.js';
import type { BudgetDecision } from './relay-store.js';

/** How far ahead of Redis's clock a caller's time may be before Redis's own is used. */
const CLOCK_TOLERANCE_MS = rules.clockToleranceMs;

/**
 * Lua that deletes KEYS[1] when it holds another type than `expected` (garbage no relay writes, which
 * every command on it would refuse) and leaves `replaced` the type it held, or false.
 */
export const replaceOtherType = (expected: 'zset' | 'string') => `local kind = redis.call('TYPE', KEYS[1])['ok']
local replaced = false
if kind ~= '${expected}' and kind ~= 'none' then
  redis.call('DEL', KEYS[1])
  replaced = kind
end`;

/**
 * One rolling hour in a sorted set, atomically: the relay's budget, a registered website's, the
 * registration attempts. Times are the caller's, but never ahead of Redis's own clock by more than
 * a little: an instance whose clock runs fast would otherwise date its events in the future (kept
 * too long) and forget everyone else's as over an hour old. Then: replace a key of another type,
 * forget events an hour old or older and any dated more than an hour ahead (garbage that would
 * spend the limit for ever), count the rest, add this one when under the limit, keep the key an
 * hour. Returns taken (0/1), the count, when at the limit the time (as Redis's exact text) of the
 * event whose leaving makes room, the replaced key's type or false, and the time used (so the
 * caller can turn the slot into its own clock).
 * KEYS[1] the sorted set; ARGV: the caller's now, the limit, a unique member, 1 h in ms, the tolerance in ms.
 */
export const ROLLING_HOUR_SCRIPT = `${replaceOtherType('zset')}
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

/** The arguments of `ROLLING_HOUR_SCRIPT` for one event at `nowMs`; throws for a time or limit Redis would misread. */
export function rollingHourArguments(nowMs: number, limit: number): string[] {
  if (!Number.isFinite(nowMs)) throw new Error(`a rolling hour needs a finite time (got ${nowMs})`);
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`a rolling hour needs a whole limit (got ${limit})`);
  // Unique, so two events at the same millisecond count twice.
  return [String(nowMs), String(limit), randomUUID(), String(HOUR_MS), String(CLOCK_TOLERANCE_MS)];
}

/** The script's reply as a decision on the caller's clock, with the type of a key it replaced; null when the reply is not the script's. */
export function readRollingHourReply(
  reply: Reply,
  nowMs: number,
  limit: number,
): { readonly decision: BudgetDecision; readonly replaced: string | null } | null {
  if (!Array.isArray(reply) || reply.length !== 5) return null;
  const [taken, used, slotText, replaced, usedNowText] = reply as Reply[];
  const slotMs = typeof slotText === 'string' ? Number(slotText) : Number.NaN;
  const usedNowMs = typeof usedNowText === 'string' ? Number(usedNowText) : Number.NaN;
  if (
    (taken !== 0 && taken !== 1) ||
    typeof used !== 'number' ||
    (slotText !== null && !Number.isFinite(slotMs)) ||
    !Number.isFinite(usedNowMs)
  ) {
    return null;
  }
  const hasRoom = used < limit;
  // At the limit with no slot to wait for (a limit of 0): an hour, as for an event just counted.
  // The slot is on the time the script used: moved onto the caller's clock.
  const nextRoomAtMs = hasRoom ? nowMs : slotText === null ? nowMs + HOUR_MS : nowMs + (slotMs + HOUR_MS - usedNowMs);
  return { decision: { taken: taken === 1, nextRoomAtMs }, replaced: typeof replaced === 'string' ? replaced : null };
}
