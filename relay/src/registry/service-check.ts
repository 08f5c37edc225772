import type { RealtimeReport } from '../../../src/contract/report.js';
import { type RelayedWebsite, relayedWebsite } from '../config.js';
import type { SourceSettings } from '../sources/source.js';
import type { BudgetDecision } from '../store/relay-store.js';
import type { UpstreamResult } from '../upstream.js';
import { describeSite, publicPart } from './registered-source.js';
import { refusal, storeDown, WRONG_TOKEN } from './registration-checks.js';
import type { Refusal } from './registrations.js';

/** What asking the service for proof of ownership needs from the relay. */
export interface ServiceCheckParts {
  /** Asks the service once for a website's report: the very fetch the relay serves websites with. */
  readonly fetchReport: (website: RelayedWebsite) => Promise<UpstreamResult>;
  /** Counts one upstream request in the relay's own hourly budget (the whole fleet's, with a shared store). */
  readonly takeRelayBudget: (nowMs: number) => Promise<BudgetDecision>;
  readonly now: () => number;
}

export type ServiceCheck = { outcome: 'checked'; report: RealtimeReport } | Refusal;

/**
 * One request to the service, within the relay's budget: only a valid report for exactly this
 * website passes, and each failure is refused with the status and words an owner can act on.
 */
export async function checkWithService(
  { takeRelayBudget, fetchReport, now }: ServiceCheckParts,
  websiteId: string,
  token: string,
  source?: SourceSettings,
): Promise<ServiceCheck> {
  let decision: BudgetDecision;
  try {
    decision = await takeRelayBudget(now());
  } catch {
    return storeDown();
  }
  if (!decision.taken) {
    return refusal(503, "This relay's hourly budget of upstream requests is spent; try again later", decision.nextRoomAtMs - now());
  }
  const result = await fetchReport(source ? relayedWebsite(websiteId, '', undefined, source) : relayedWebsite(websiteId, token));
  if ('report' in result) return { outcome: 'checked', report: result.report };
  const { kind, status } = result.failure;
  switch (kind) {
    case 'unauthorized':
      return refusal(401, source ? wrongSourceKey(source) : WRONG_TOKEN);
    case 'not-found':
      return refusal(
        404,
        source
          ? `${source.kind} does not know the ${describeSite(publicPart(source))}: check its site id`
          : `The analytics service does not know a website "${websiteId}": check the website ID`,
      );
    case 'timeout':
      return refusal(504, `The analytics service did not answer in time; nothing was stored. Try again`);
    default:
      return refusal(
        502,
        `The analytics service failed (${status === null ? 'unreachable' : `it answered ${status}`}); nothing was stored. Try again later`,
      );
  }
}

function wrongSourceKey(source: SourceSettings): string {
  return `${source.kind} refused this key for the ${describeSite(publicPart(source))}: copy the key again from its settings`;
}
