import { isPlainObject } from '../../../server-kit/config-checks.js';
import { CONTRACT_WINDOW_MINUTES } from '../../../src/contract/report.js';
import { invalid } from '../upstream.js';
import { askJson, countOrFailure } from './answer.js';
import {
  type AccessToken,
  fetchAccessToken,
  isUsable,
  privateKeyForms,
  readServiceAccountKey,
  type ServiceAccountKey,
} from './ga4-service-account.js';
import type { SourceCall, SourceDefinition, SourceReading, SourceSettings } from './source.js';

export interface Ga4Settings extends SourceSettings {
  readonly kind: 'ga4';
  /** The GA4 property's numeric id (not the G-… measurement id). */
  readonly propertyId: string;
  /** The service account's JSON key, a secret as a whole. */
  readonly credentials: ServiceAccountKey;
  /** The window, 1 to 30 minutes (a standard property's realtime reach); 3 (the contract's) by default. */
  readonly minutes: number;
}

const ACCESS_TOKEN = 'access-token';

/**
 * The Data API's `runRealtimeReport` (developers.google.com/analytics/devguides/reporting/data/v1,
 * the protos of `@google-analytics/data`): `activeUsers` over the last `minutes` minutes, values
 * as strings, no rows for none. Realtime quota per standard property: 200,000 tokens a day,
 * 40,000 an hour, 14,000 an hour per Cloud project; a one-metric report costs a few.
 */
export const ga4: SourceDefinition<Ga4Settings> = {
  kind: 'ga4',
  defaultBase: 'https://analyticsdata.googleapis.com',
  // One every 10 s: even at 10 tokens a request, 3,600 an hour, inside the project's 14,000 and the day's 200,000.
  defaultHourlyBudget: 360,
  maxHourlyBudget: 3_600,
  minIntervalSeconds: 10,
  fields: ['propertyId', 'credentials', 'minutes'],
  secretFields: ['credentials'],
  parse(entry, at, issues) {
    const before = issues.length;
    const propertyId = typeof entry.propertyId === 'number' ? String(entry.propertyId) : entry.propertyId;
    if (typeof propertyId !== 'string' || !/^[1-9]\d{0,19}$/.test(propertyId)) {
      issues.push(`${at}.propertyId must be the GA4 property's numeric id, like "123456789" (not a G-… measurement id)`);
    }
    const minutes = entry.minutes ?? CONTRACT_WINDOW_MINUTES;
    if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 1 || minutes > 30) {
      issues.push(`${at}.minutes must be a whole number of minutes from 1 to 30`);
    }
    if (entry.credentials === undefined) issues.push(`${at}.credentials is required: the service account's JSON key`);
    const credentials =
      entry.credentials === undefined || entry.credentials === null
        ? undefined
        : readServiceAccountKey(entry.credentials, `${at}.credentials`, issues);
    if (issues.length > before) return undefined;
    return { propertyId: propertyId as string, minutes: minutes as number, credentials: credentials! };
  },
  windowMinutes: (settings) => settings.minutes,
  secrets: (settings) => privateKeyForms(settings.credentials.private_key),
  async read(settings, call, state) {
    const kept = state.get(ACCESS_TOKEN) as AccessToken | undefined;
    if (isUsable(kept, call.now())) {
      const reading = await realtimeReport(settings, call, kept.token);
      // Revoked or expired early: one new token, one more try.
      if (!('failure' in reading) || reading.failure.status !== 401) return reading;
    }
    state.delete(ACCESS_TOKEN);
    const fresh = await fetchAccessToken(settings.credentials, call);
    if ('failure' in fresh) return fresh;
    state.set(ACCESS_TOKEN, fresh);
    return realtimeReport(settings, call, fresh.token);
  },
};

async function realtimeReport(settings: Ga4Settings, call: SourceCall, accessToken: string): Promise<SourceReading> {
  const url = `${settings.base}/v1beta/properties/${settings.propertyId}:runRealtimeReport`;
  const answer = await askJson(call.withSecrets(accessToken), url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      metrics: [{ name: 'activeUsers' }],
      // Inclusive: 2 minutes ago up to now is the last 3 minutes.
      minuteRanges: [{ startMinutesAgo: settings.minutes - 1, endMinutesAgo: 0 }],
    }),
  });
  if ('failure' in answer) return answer;
  const { json } = answer;
  if (!isPlainObject(json)) return invalid(200, 'sent something else than a report');
  const { rows, metricHeaders } = json;
  // Every report names its metrics; an object that does not is no report (a proxy's, say), not a 0.
  const header = Array.isArray(metricHeaders) && isPlainObject(metricHeaders[0]) ? metricHeaders[0].name : undefined;
  if (header !== 'activeUsers') return invalid(200, 'sent something else than a report of activeUsers');
  // No active user, no row.
  if (rows === undefined || (Array.isArray(rows) && rows.length === 0)) return { count: 0 };
  const first = Array.isArray(rows) && rows.length === 1 && isPlainObject(rows[0]) ? rows[0].metricValues : undefined;
  const value = Array.isArray(first) && isPlainObject(first[0]) ? first[0].value : undefined;
  return countOrFailure(value, 'rows[0].metricValues[0].value', { digits: true });
}
