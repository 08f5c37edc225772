import { isPlainObject } from '../../../server-kit/config-checks.js';
import { isLoopbackHost } from '../../../server-kit/loopback.js';
import { CONTRACT_WINDOW_MINUTES } from '../../../src/contract/report.js';
import { invalid } from '../upstream.js';
import { askJson, countOrFailure } from './answer.js';
import { type AccessToken, fetchAccessToken, isUsable, pemBytes, type ServiceAccountKey } from './ga4-token.js';
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

/** A service account's JSON key (as an object, or as its JSON text from the environment), checked field by field, never quoted. */
function readServiceAccountKey(value: unknown, at: string, issues: string[]): ServiceAccountKey | undefined {
  let key = value;
  if (typeof value === 'string') {
    try {
      key = JSON.parse(value);
    } catch {
      issues.push(`${at} must be the service account's JSON key (the file Google Cloud downloads), and this text is not JSON`);
      return undefined;
    }
  }
  if (!isPlainObject(key) || key.type !== 'service_account') {
    issues.push(
      `${at} must be a service account's JSON key, with "type": "service_account" (create one under IAM > Service accounts > Keys)`,
    );
    return undefined;
  }
  const before = issues.length;
  const { client_email, private_key, token_uri, private_key_id } = key;
  if (typeof client_email !== 'string' || !/^[^\s@]{1,128}@[^\s@]{1,253}$/.test(client_email))
    issues.push(`${at}.client_email must be the service account's e-mail address`);
  if (typeof private_key !== 'string' || !isPem(private_key))
    issues.push(`${at}.private_key must be the key's PEM "-----BEGIN PRIVATE KEY-----…"`);
  if (!isTokenUri(token_uri)) issues.push(`${at}.token_uri must be an https URL like "https://oauth2.googleapis.com/token"`);
  if (private_key_id !== undefined && (typeof private_key_id !== 'string' || !/^[\w-]{1,128}$/.test(private_key_id))) {
    issues.push(`${at}.private_key_id must be letters and digits`);
  }
  if (issues.length > before) return undefined;
  const parsed = {
    // Kept, so a parsed config parses again (createRelay checks the config it is given).
    type: 'service_account',
    client_email,
    private_key,
    token_uri,
    ...(typeof private_key_id === 'string' ? { private_key_id } : {}),
  } as ServiceAccountKey;
  return Object.freeze(parsed);
}

function isPem(text: string): boolean {
  try {
    return pemBytes(text).length > 100;
  } catch {
    return false;
  }
}

/** https, or http to this machine (a stand-in in tests): the signed assertion must not cross a network in the clear. */
function isTokenUri(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return !url.username && !url.password && (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)));
  } catch {
    return false;
  }
}

/**
 * The private key as a text could hold it: whole, its base64 without the PEM lines, and each
 * base64 line alone, so the key quoted inside its JSON file (lines joined by a written `\n`)
 * or cut anywhere between lines leaves nothing readable. A short last line (under 16
 * characters) is left out: it could match ordinary words, and alone gives nothing away.
 */
function privateKeyForms(pem: string): string[] {
  const lines = pem.split(/-----[A-Z ]+-----|\\n|\s/).filter((line) => line.length >= 16);
  return [pem, lines.join(''), ...lines];
}
