import type { RealtimeReport } from '../../../src/contract/report.js';
import { type RelayedWebsite, relayedWebsite } from '../config.js';
import { SOURCE_DEFINITIONS } from '../sources/kinds.js';
import type { SourceSettings } from '../sources/source.js';
import type { UpstreamFailure, UpstreamResult } from '../upstream.js';
import type { ProofAttempt } from './attempt-limits.js';
import { refusal, WRONG_TOKEN } from './registration-checks.js';
import type { Refusal } from './registrations.js';
import { SOURCE_WORDS } from './source-form.js';

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
  if (source) return refusedSource(source, result.failure);
  const { kind, status } = result.failure;
  switch (kind) {
    case 'unauthorized':
      return refusal(401, WRONG_TOKEN);
    case 'not-found':
      return refusal(404, `The analytics service does not know a website "${websiteId}": check the website ID`);
    case 'timeout':
      return refusal(504, `The analytics service did not answer in time; nothing was stored. Try again`);
    default:
      return refusal(
        502,
        `The analytics service failed (${status === null ? 'unreachable' : `it answered ${status}`}); nothing was stored. Try again later`,
      );
  }
}

/**
 * A source's refusal in the owner's words, naming the form's fields: a wrong key, a site the key
 * may not read and a wrong API address are told apart wherever the service's answer tells them
 * apart (a service that answers 401 for both the key and the site gets "the key or the site").
 */
function refusedSource(source: SourceSettings, { kind, status, said, reason }: UpstreamFailure): Refusal {
  const words = SOURCE_WORDS[source.kind]!;
  const { name, labels, siteField } = words;
  const site = `"${String((source as unknown as Record<string, unknown>)[siteField])}"`;
  const field = (fieldName: string) => `"${labels[fieldName] ?? fieldName}"`;
  const key = field(SOURCE_DEFINITIONS[source.kind].secretFields[0]!);
  const address = `${field('base')} (${source.base})`;
  switch (kind) {
    case 'unauthorized':
      if (!words.tellsKeyFromSite) {
        return refusal(
          401,
          `${name} refused the key or the site ${site} (it answers the same for both): check ${key} and ${field(siteField)}`,
        );
      }
      return status === 403
        ? refusal(401, `${name} accepted the key, but it may not read the site ${site}: give it access there, or check ${field(siteField)}`)
        : refusal(401, `${name} refused the key: copy ${key} again from ${name}`);
    case 'not-found':
      // A 404 in the service's own words is about the site; a bare 404 is another server at that address.
      return said === null
        ? refusal(404, `Nothing at ${address} answers as ${name}'s API: check the address`)
        : refusal(404, `${name} does not know the site ${site}: check ${field(siteField)}`);
    case 'network':
      return refusal(502, `${name} could not be reached at ${address}: check the address, or try again later`);
    case 'invalid-response':
      return refusal(502, `The server at ${address} did not answer as ${name}'s API (it ${reason}): check the address`);
    case 'timeout':
      return refusal(504, `${name} did not answer in time; nothing was stored. Try again`);
    default:
      return refusal(502, `${name} failed (it ${reason}); nothing was stored. Try again later`);
  }
}
