import type { RealtimeReport } from '../../../src/contract/report.js';
import { type RelayedWebsite, relayedWebsite } from '../config.js';
import type { SourceSettings } from '../sources/source.js';
import type { UpstreamResult } from '../upstream.js';
import type { ProofAttempt } from './attempt-limits.js';
import { describeSite, publicPart } from './registered-source.js';
import { refusal, WRONG_TOKEN } from './registration-checks.js';
import type { Refusal } from './registrations.js';

/** What asking the service for proof of ownership needs from the relay. */
export interface ServiceCheckParts {
  /** Asks the service once for a website's report: the very fetch the relay serves websites with. */
  readonly fetchReport: (website: RelayedWebsite) => Promise<UpstreamResult>;
}

export type ServiceCheck = { outcome: 'checked'; report: RealtimeReport } | Refusal;

/**
 * One request to the service, within the relay's allowance of checks (never the websites' serving
 * budget): only a valid report for exactly this website passes, and each failure is refused with
 * the status and words an owner can act on. A token goes only to the contract's service, a
 * source's keys only to that source: the caller has made sure the website ID names that proof.
 */
export async function checkWithService(
  { fetchReport }: ServiceCheckParts,
  attempt: ProofAttempt,
  websiteId: string,
  token: string,
  source?: SourceSettings,
): Promise<ServiceCheck> {
  const spent = await attempt.check();
  if (spent) return spent;
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
