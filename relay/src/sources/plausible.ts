import { readIdentifier } from '../../../server-kit/config-checks.js';
import { askJson, countOrFailure } from './answer.js';
import { requiredSecret, type SourceDefinition, type SourceSettings } from './source.js';

export interface PlausibleSettings extends SourceSettings {
  readonly kind: 'plausible';
  /** The site's domain as Plausible knows it ("shop.example"). */
  readonly siteId: string;
  readonly apiKey: string;
}

/**
 * Plausible's Stats API realtime endpoint: a bare integer, the unique visitors of the last 5
 * minutes. API keys may send 600 requests an hour by default (plausible.io/docs/stats-api).
 */
export const plausible: SourceDefinition<PlausibleSettings> = {
  kind: 'plausible',
  defaultBase: 'https://plausible.io',
  // Half the key's 600 an hour: the key may serve the shop's own dashboards and scripts too.
  defaultHourlyBudget: 300,
  maxHourlyBudget: 600,
  minIntervalSeconds: 10,
  fields: ['siteId', 'apiKey'],
  secretFields: ['apiKey'],
  parse(entry, at, issues) {
    const apiKey = requiredSecret(entry, 'apiKey', at, "a Stats API key from the shop's Plausible account settings", issues);
    const siteId = readIdentifier(entry.siteId, `${at}.siteId`, 256, issues);
    return siteId === undefined || apiKey === undefined ? undefined : { siteId, apiKey };
  },
  windowMinutes: () => 5,
  secrets: (settings) => [settings.apiKey],
  async read(settings, call) {
    const url = `${settings.base}/api/v1/stats/realtime/visitors?${new URLSearchParams({ site_id: settings.siteId })}`;
    const answer = await askJson(call, url, { headers: { Authorization: `Bearer ${settings.apiKey}` } });
    return 'failure' in answer ? answer : countOrFailure(answer.json, 'its answer (a bare number expected)');
  },
};
