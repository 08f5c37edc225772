import { isPlainObject, readIdentifier } from '../../../server-kit/config-checks.js';
import { invalid } from '../upstream.js';
import { askJson, countOrFailure } from './answer.js';
import { requiredSecret, type SourceDefinition, type SourceSettings } from './source.js';

export interface FathomSettings extends SourceSettings {
  readonly kind: 'fathom';
  /** The site's id, as in its tracking code ("CDBUGS"). */
  readonly siteId: string;
  readonly apiKey: string;
}

/**
 * Fathom's current visitors (`GET /v1/current_visitors`): `total`, over a window Fathom does not
 * state. 10 requests a minute per user on this endpoint, and every call counts as a pageview on
 * the shop's plan (usefathom.com/api/v1/rate-limits, docs/relay.md "Sources").
 */
export const fathom: SourceDefinition<FathomSettings> = {
  kind: 'fathom',
  defaultBase: 'https://api.usefathom.com',
  // One a minute: each call is billed as a pageview, and the user's 10 a minute are shared by all their sites.
  defaultHourlyBudget: 60,
  maxHourlyBudget: 600,
  minIntervalSeconds: 30,
  fields: ['siteId', 'apiKey'],
  secretFields: ['apiKey'],
  parse(entry, at, issues) {
    const apiKey = requiredSecret(entry, 'apiKey', at, "an API key from the shop's Fathom account settings", issues);
    const siteId = readIdentifier(entry.siteId, `${at}.siteId`, 64, issues);
    return siteId === undefined || apiKey === undefined ? undefined : { siteId, apiKey };
  },
  windowMinutes: () => null,
  secrets: (settings) => [settings.apiKey],
  async read(settings, call) {
    const url = `${settings.base}/v1/current_visitors?${new URLSearchParams({ site_id: settings.siteId })}`;
    const answer = await askJson(call, url, { headers: { Authorization: `Bearer ${settings.apiKey}` } });
    if ('failure' in answer) return answer;
    if (!isPlainObject(answer.json)) return invalid(200, 'sent something else than an object with total');
    return countOrFailure(answer.json.total, 'total');
  },
};
