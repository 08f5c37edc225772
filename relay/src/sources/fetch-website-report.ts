import { RollingHourLimit } from '../../../server-kit/rolling-hour.js';
import { CONTRACT_WINDOW_MINUTES, type RealtimeReport } from '../../../src/contract/report.js';
import type { RelayedWebsite } from '../config.js';
import { Redactor } from '../redaction.js';
import { fetchUpstreamReport, type UpstreamFailure, type UpstreamRequest } from '../upstream.js';
import { sourceCall } from './call.js';
import { SOURCE_DEFINITIONS } from './kinds.js';
import type { SourceSettings } from './source.js';

/** What a source keeps between reads: its own request budget, its secrets' redactor, and what its kind keeps (a login, an access token). */
interface SourceState {
  readonly budget: RollingHourLimit;
  readonly secrets: Redactor;
  lastAskedAtMs: number;
  readonly kept: Map<string, unknown>;
}

/** Per parsed source, for as long as the config that holds it lives. */
const states = new WeakMap<SourceSettings, SourceState>();

export type WebsiteReportResult = { readonly report: RealtimeReport } | { readonly failure: UpstreamFailure };

/** A request for the contract's service, of a website as configured: with its `source`, if it names one. */
export interface WebsiteReportRequest extends UpstreamRequest {
  readonly website: RelayedWebsite;
}

/**
 * Asks a website's source once for its report: the contract's service (`upstream`) when the
 * website names no source, else the service its `source` names. The one function the cache and
 * the registration's check both call; never rejects. The report's `websiteId` is the relay's id
 * for the website, its `timestamp` when the count arrived (no source states when it collected
 * it), and `windowMinutes` is there when the source counts another window than the contract's 3.
 */
export async function fetchWebsiteReport(request: WebsiteReportRequest): Promise<WebsiteReportResult> {
  const source = request.website.source;
  if (source === undefined) return fetchUpstreamReport(request);
  const definition = SOURCE_DEFINITIONS[source.kind];
  const state = stateOf(source);
  const refused = refusedByOwnLimits(source, state, definition.minIntervalSeconds, request.now());
  if (refused) return { failure: refused };
  const call = sourceCall(
    { fetch: request.fetch, now: request.now, timeoutMs: request.timeoutMs, timers: request.timers, redactor: request.redactor },
    state.secrets,
  );
  const reading = await definition.read(source, call, state.kept);
  if ('failure' in reading) return reading;
  const windowMinutes = definition.windowMinutes(source);
  return {
    report: {
      currentVisitors: reading.count,
      websiteId: request.website.id,
      timestamp: new Date(request.now()).toISOString(),
      ...(windowMinutes !== null && windowMinutes !== CONTRACT_WINDOW_MINUTES ? { windowMinutes } : {}),
    },
  };
}

function stateOf(source: SourceSettings): SourceState {
  let state = states.get(source);
  if (!state) {
    state = {
      budget: new RollingHourLimit(source.hourlyBudget),
      secrets: new Redactor(SOURCE_DEFINITIONS[source.kind].secrets(source)),
      lastAskedAtMs: Number.NEGATIVE_INFINITY,
      kept: new Map(),
    };
    states.set(source, state);
  }
  return state;
}

/**
 * The service's own limits, kept by this instance whatever the relay's interval and budget: no
 * two requests for one website closer than the kind's minimum interval, and no more than the
 * source's `hourlyBudget` in a rolling hour. Refused as the service would refuse: rate-limited,
 * with the time to come back, so the relay backs off and serves its last answer meanwhile.
 */
function refusedByOwnLimits(source: SourceSettings, state: SourceState, minIntervalSeconds: number, nowMs: number): UpstreamFailure | null {
  const minIntervalMs = minIntervalSeconds * 1000;
  let retryAtMs: number | null = null;
  let reason = '';
  if (nowMs - state.lastAskedAtMs < minIntervalMs) {
    retryAtMs = state.lastAskedAtMs + minIntervalMs;
    reason = `was not asked: ${source.kind} is asked at most once every ${minIntervalSeconds} s per website`;
  } else if (!state.budget.tryTake(nowMs)) {
    retryAtMs = state.budget.nextRoomAt(nowMs);
    reason = `was not asked: this source's hourlyBudget of ${source.hourlyBudget} requests is spent`;
  }
  if (retryAtMs === null) {
    state.lastAskedAtMs = nowMs;
    return null;
  }
  return { kind: 'rate-limited', status: null, retryAfterMs: retryAtMs - nowMs, reason, said: null };
}
