import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { RollingHourLimit } from '../../../server-kit/rolling-hour.js';
import { SPEC_MESSAGES } from '../../../src/contract/errors.js';
import type { RealtimeReport } from '../../../src/contract/report.js';
import { BEARER_TOKEN_SYNTAX, MAX_IDENTIFIER_LENGTH, readWebsiteIdParameter } from '../../../src/contract/request.js';
import { retryAfterSeconds } from '../../../src/contract/retry-after.js';
import rules from '../../../src/contract/rules.json' with { type: 'json' };
import { HOURLY_REQUEST_LIMITS, type WebsiteConfig } from '../config.js';
import type { VisitorWindow } from '../visitor-window.js';
import { errorResponse } from './error-response.js';

export interface RealtimeEndpointOptions {
  readonly websites: readonly WebsiteConfig[];
  /** The visitors of every configured website, by id. */
  readonly visitors: ReadonlyMap<string, VisitorWindow>;
  readonly now: () => number;
}

interface KnownWebsite {
  readonly website: WebsiteConfig;
  readonly tokenDigest: Buffer;
}

// The scheme name is case-insensitive (RFC 9110 §11.1); one or more spaces separate it from the token.
const BEARER_CREDENTIALS = /^bearer +(\S+)$/i;

/** `GET /api/v1/realtime`: the one operation of the spec, counted against the plan limits of part 8. */
export class RealtimeEndpoint {
  readonly #websites: readonly KnownWebsite[];
  readonly #visitors: ReadonlyMap<string, VisitorWindow>;
  readonly #now: () => number;
  // Per website, as a token belongs to exactly one (docs/realtime-api.md#the-request); created by its first request.
  readonly #limits = new Map<string, RollingHourLimit>();

  constructor(options: RealtimeEndpointOptions) {
    this.#websites = options.websites.map((website) => ({ website, tokenDigest: digest(website.token) }));
    this.#visitors = options.visitors;
    this.#now = options.now;
  }

  /** Request timestamps held by the plan limits. */
  get trackedRequests(): number {
    const nowMs = this.#now();
    let total = 0;
    for (const limit of this.#limits.values()) total += limit.used(nowMs);
    return total;
  }

  /**
   * Checks in this order, so nothing is revealed to a caller that has not earned it:
   * 401 header shape or unknown token → 429 plan limit → 400 websiteId →
   * 404 unknown website → 401 token of another website → 200.
   */
  answer(c: Context): Response {
    const token = readBearerToken(c.req.header('authorization'));
    const owner = token === undefined ? undefined : this.#findByToken(token);
    if (!owner) return unauthorizedResponse(c, token !== undefined);

    const nowMs = this.#now();
    const limit = this.#limitOf(owner);
    const admitted = limit.tryTake(nowMs);
    // GitHub's names, on every answer to a known token. Reset: Unix seconds when the oldest counted request leaves the hour.
    c.header('X-RateLimit-Limit', String(limit.limit));
    c.header('X-RateLimit-Remaining', String(limit.limit - limit.used(nowMs)));
    c.header('X-RateLimit-Reset', String(Math.ceil(limit.oldestLeavesAt(nowMs) / 1000)));
    if (!admitted) {
      const retryAfter = retryAfterSeconds(limit.nextRoomAt(nowMs), nowMs, rules.dayCeilingMs / 1000);
      const message = `Rate limit exceeded: ${limit.limit} requests per hour on the ${owner.plan} plan. Retry in ${retryAfter} seconds.`;
      return errorResponse(c, 429, message, { 'Retry-After': String(retryAfter) });
    }

    const websiteId = readWebsiteIdParameter(new URL(c.req.url).searchParams);
    if ('error' in websiteId) return errorResponse(c, 400, websiteId.error);
    if (!this.#visitors.has(websiteId.value)) return errorResponse(c, 404, SPEC_MESSAGES.websiteNotFound);
    if (websiteId.value !== owner.id) return unauthorizedResponse(c, true);
    return c.json(this.report(owner.id, nowMs));
  }

  /** The report on `websiteId` at `nowMs`; 0 visitors for a website that does not exist. */
  report(websiteId: string, nowMs = this.#now()): RealtimeReport {
    const currentVisitors = this.#visitors.get(websiteId)?.count(nowMs) ?? 0;
    return { currentVisitors, websiteId, timestamp: new Date(nowMs).toISOString() };
  }

  /** Forgets every request counted against the plan limits. */
  forgetRequests(): void {
    this.#limits.clear();
  }

  /**
   * Compares SHA-256 digests (equal lengths, as `timingSafeEqual` needs) against every website
   * without stopping at a match, so response time tells an attacker nothing about how much of a
   * token was right, nor which entry matched.
   */
  #findByToken(token: string): WebsiteConfig | undefined {
    const candidate = digest(token);
    let owner: WebsiteConfig | undefined;
    for (const known of this.#websites) {
      if (timingSafeEqual(candidate, known.tokenDigest)) owner = known.website;
    }
    return owner;
  }

  #limitOf(website: WebsiteConfig): RollingHourLimit {
    let limit = this.#limits.get(website.id);
    if (!limit) {
      limit = new RollingHourLimit(HOURLY_REQUEST_LIMITS[website.plan]);
      this.#limits.set(website.id, limit);
    }
    return limit;
  }
}

/** The spec's 401, with the RFC 6750 challenge: the scheme to use, and whether a token came but was refused. */
export function unauthorizedResponse(c: Context, invalidToken: boolean): Response {
  const challenge = invalidToken ? 'Bearer error="invalid_token"' : 'Bearer';
  return errorResponse(c, 401, SPEC_MESSAGES.unauthorized, { 'WWW-Authenticate': challenge });
}

/**
 * The token of an `Authorization: Bearer <token>` header, or `undefined` when the header is
 * missing or has any other shape (other scheme, no token, spaces or commas inside the token —
 * two Authorization headers arrive joined by a comma).
 */
function readBearerToken(header: string | undefined): string | undefined {
  const token = header === undefined ? undefined : BEARER_CREDENTIALS.exec(header.trim())?.[1];
  if (token === undefined || token.length > MAX_IDENTIFIER_LENGTH || !BEARER_TOKEN_SYNTAX.test(token)) return undefined;
  return token;
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
