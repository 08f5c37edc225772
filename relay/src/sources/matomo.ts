import { isPlainObject } from '../../../server-kit/config-checks.js';
import type { RealtimeErrorKind } from '../../../src/contract/errors.js';
import { CONTRACT_WINDOW_MINUTES, MAX_WINDOW_MINUTES, readWindowMinutes } from '../../../src/contract/report.js';
import { invalid } from '../upstream.js';
import { askJson, countOrFailure } from './answer.js';
import { requiredSecret, type SourceCall, type SourceDefinition, type SourceReading, type SourceSettings } from './source.js';

export interface MatomoSettings extends SourceSettings {
  readonly kind: 'matomo';
  /** The site's id in Matomo (`idSite`), digits. */
  readonly siteId: string;
  /** A user's `token_auth` with view access to the site; sent in the POST body, never in the URL. */
  readonly tokenAuth: string;
  /** The window Matomo counts, 1 to 60 minutes; 3 (the contract's) by default. */
  readonly lastMinutes: number;
}

/**
 * Matomo's `Live.getCounters` (developer.matomo.org/api-reference/reporting-api, the Live
 * plugin's API.php): `[{ "visitors": "33" }]` for the last `lastMinutes` minutes, counts as
 * strings (a number when there were no visits), and errors that may arrive with status 200. Self-hosted or Matomo Cloud: `base` is
 * always the shop's own Matomo. No request limit is documented; each call queries the visit log.
 */
export const matomo: SourceDefinition<MatomoSettings> = {
  kind: 'matomo',
  defaultBase: null,
  defaultHourlyBudget: 360,
  maxHourlyBudget: 3_600,
  minIntervalSeconds: 10,
  fields: ['siteId', 'tokenAuth', 'lastMinutes'],
  secretFields: ['tokenAuth'],
  parse(entry, at, issues) {
    const before = issues.length;
    const siteId = typeof entry.siteId === 'number' ? String(entry.siteId) : entry.siteId;
    if (typeof siteId !== 'string' || !/^[1-9]\d{0,9}$/.test(siteId))
      issues.push(`${at}.siteId must be the site's id in Matomo, a whole number like 1`);
    const tokenAuth = requiredSecret(
      entry,
      'tokenAuth',
      at,
      "a token_auth from the shop's Matomo (Administration > Personal > Security)",
      issues,
    );
    // Any window the element accepts in an answer (the contract's reader), the contract's 3 by default.
    const lastMinutes = entry.lastMinutes ?? CONTRACT_WINDOW_MINUTES;
    if (lastMinutes !== CONTRACT_WINDOW_MINUTES && readWindowMinutes(lastMinutes) === undefined) {
      issues.push(`${at}.lastMinutes must be a whole number of minutes from 1 to ${MAX_WINDOW_MINUTES}`);
    }
    if (issues.length > before || tokenAuth === undefined) return undefined;
    return { siteId: siteId as string, tokenAuth, lastMinutes: lastMinutes as number };
  },
  windowMinutes: (settings) => settings.lastMinutes,
  secrets: (settings) => [settings.tokenAuth],
  async read(settings, call) {
    const query = new URLSearchParams({
      module: 'API',
      method: 'Live.getCounters',
      idSite: settings.siteId,
      lastMinutes: String(settings.lastMinutes),
      // Matomo 4 and later then run the one COUNT(DISTINCT visitor) query, not also the visits,
      // actions and conversions ones on the shop's visit log; older versions ignore it.
      showColumns: 'visitors',
      format: 'JSON',
    });
    const answer = await askJson(call, `${settings.base}/index.php?${query}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      // In the body: a URL ends up in the access logs of every proxy on the way.
      body: new URLSearchParams({ token_auth: settings.tokenAuth }).toString(),
    });
    if ('failure' in answer) return answer;
    const { json } = answer;
    if (isPlainObject(json) && json.result === 'error') return matomoError(json.message, call);
    const row = Array.isArray(json) && json.length === 1 ? json[0] : undefined;
    if (!isPlainObject(row)) return invalid(200, 'sent something else than [{ "visitors": … }]');
    return countOrFailure(row.visitors, 'visitors', { digits: true });
  },
};

/** Matomo answers most errors with status 200 and `{ "result": "error", "message": … }`: what it means, by its message. */
function matomoError(message: unknown, call: SourceCall): SourceReading {
  const text = typeof message === 'string' ? message : '';
  const kind: RealtimeErrorKind = /token_auth|authenticat|access|permission|log ?in/i.test(text)
    ? 'unauthorized'
    : /idsite|website id|site .*(not|exist)/i.test(text)
      ? 'not-found'
      : 'invalid-response';
  const advice =
    kind === 'unauthorized'
      ? ": check this website's source tokenAuth (view access to the site)"
      : kind === 'not-found'
        ? ": check this website's source siteId"
        : '';
  return {
    failure: {
      kind,
      status: 200,
      retryAfterMs: null,
      reason: `answered with an error${advice}`,
      said: text ? call.redactor.words(text) : null,
    },
  };
}
