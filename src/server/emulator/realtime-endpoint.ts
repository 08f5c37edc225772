import { readBearerToken } from './bearer-token.js';
import { HOURLY_REQUEST_LIMITS } from './config.js';
import { faultAnswer } from './fault-responses.js';
import { FAULT_DEFAULTS } from './faults.js';
import type { FaultSwitch } from './fault-switch.js';
import { checkIdentifier, type IdentifierCheck } from './identifier.js';
import type { PageviewStore } from './pageview-store.js';
import { rateLimitHeaders, secondsUntil } from './rate-limit-headers.js';
import type { SlidingWindowRateLimiter } from './rate-limiter.js';
import { realtimeReport, type RealtimeReport } from './realtime-report.js';
import { errorAnswer, jsonAnswer } from './responses.js';
import { bearerChallenge, SPEC_MESSAGES } from './spec-messages.js';
import type { WebsiteDirectory } from './website-directory.js';

export interface RealtimeEndpointParts {
  readonly directory: WebsiteDirectory;
  readonly store: PageviewStore;
  readonly limiter: SlidingWindowRateLimiter;
  readonly faults: FaultSwitch;
  readonly now: () => number;
  /** Aborts when the emulator is disposed, releasing requests a fault holds. */
  readonly shutdown: AbortSignal;
}

/** `GET /api/v1/realtime`: the one operation of the spec, plus the faults that can spoil it. */
export class RealtimeEndpoint {
  readonly #parts: RealtimeEndpointParts;

  constructor(parts: RealtimeEndpointParts) {
    this.#parts = parts;
  }

  async handle(request: Request, url: URL): Promise<Response> {
    const { faults, shutdown } = this.#parts;
    // A loop because a released `hang` must look again: the fault may have been replaced.
    for (;;) {
      const fault = faults.current;
      if (!fault) return this.#answer(request, url);
      // Only for the faults that hold a request: on Node 20, AbortSignal.any with the emulator's
      // lifelong shutdown signal keeps every combined signal alive, a leak on the hot path.
      const signal = AbortSignal.any([request.signal, shutdown]);
      if (fault.kind === 'hang') {
        if ((await faults.holdUntilChange(signal)) === 'aborted') return this.#abandoned(request);
        continue;
      }
      if (fault.kind === 'slow') {
        const delayMs = (fault.delaySeconds ?? FAULT_DEFAULTS.delaySeconds) * 1000;
        if ((await faults.delay(delayMs, signal)) === 'aborted') return this.#abandoned(request);
        return this.#answer(request, url);
      }
      return faultAnswer(fault, this.#reportForFault(url));
    }
  }

  /**
   * Checks in this order, so nothing is revealed to a caller that has not earned it:
   * 401 header shape or unknown token → 429 plan limit → 400 websiteId →
   * 404 unknown website → 401 token of another website → 200.
   */
  #answer(request: Request, url: URL): Response {
    const { directory, store, limiter, now } = this.#parts;
    const token = readBearerToken(request.headers.get('authorization'));
    const owner = token === undefined ? undefined : directory.findByToken(token);
    if (!owner) return errorAnswer(401, SPEC_MESSAGES.unauthorized, { headers: bearerChallenge(token !== undefined) });

    const nowMs = now();
    const decision = limiter.take(owner.id, HOURLY_REQUEST_LIMITS[owner.plan], nowMs);
    const headers = rateLimitHeaders(decision, nowMs);
    if (!decision.allowed) {
      const message = `Rate limit exceeded: ${decision.limit} requests per hour on the ${owner.plan} plan. ` +
        `Retry in ${secondsUntil(decision.slotFreesAtMs, nowMs)} seconds.`;
      return errorAnswer(429, message, { headers });
    }

    const websiteId = readWebsiteIdParameter(url.searchParams);
    if ('error' in websiteId) return errorAnswer(400, websiteId.error, { headers });
    if (!directory.findById(websiteId.value)) return errorAnswer(404, SPEC_MESSAGES.websiteNotFound, { headers });
    if (websiteId.value !== owner.id) {
      return errorAnswer(401, SPEC_MESSAGES.unauthorized, { headers: { ...headers, ...bearerChallenge(true) } });
    }
    return jsonAnswer(200, realtimeReport(store.currentVisitors(owner.id, nowMs), owner.id, nowMs), { headers });
  }

  // What the real answer would have held, so a fault that spoils one field leaves the others plausible.
  #reportForFault(url: URL): RealtimeReport {
    const { directory, store, now } = this.#parts;
    const websiteId = url.searchParams.get('websiteId') ?? '';
    const nowMs = now();
    const count = directory.findById(websiteId) ? store.currentVisitors(websiteId, nowMs) : 0;
    return realtimeReport(count, websiteId, nowMs);
  }

  // Nobody reads this answer when the client left; it only settles the handler's promise.
  #abandoned(request: Request): Response {
    return request.signal.aborted
      ? errorAnswer(499, 'Client closed the request')
      : errorAnswer(503, 'The emulator is shutting down');
  }
}

function readWebsiteIdParameter(parameters: URLSearchParams): IdentifierCheck {
  const values = parameters.getAll('websiteId');
  if (values.length > 1) return { error: 'websiteId must be given only once' };
  return checkIdentifier('websiteId', values[0]);
}
