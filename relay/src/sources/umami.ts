import { isPlainObject, readIdentifier } from '../../../server-kit/config-checks.js';
import { invalid, type UpstreamFailure } from '../upstream.js';
import { askJson, countOrFailure } from './answer.js';
import type { SourceCall, SourceDefinition, SourceReading, SourceSettings } from './source.js';

export interface UmamiSettings extends SourceSettings {
  readonly kind: 'umami';
  /** The website's id in Umami (a UUID). */
  readonly websiteId: string;
  /** An API key: Umami Cloud's (read from `x-umami-api-key`) or a self-hosted one's (read as a Bearer token); both are sent, as the official client does. */
  readonly apiKey?: string;
  /** A self-hosted Umami's user, whose login token is kept and renewed on 401. */
  readonly username?: string;
  readonly password?: string;
}

const LOGIN_TOKEN = 'login-token';

/**
 * Umami's active visitors (`GET {base}/websites/{websiteId}/active`): distinct sessions of the
 * last 5 minutes. Umami Cloud allows 50 calls per 15 s per key; a self-hosted server has no limit
 * of its own (umami.is/docs/api, the official client `@umami/api-client`).
 */
export const umami: SourceDefinition<UmamiSettings> = {
  kind: 'umami',
  defaultBase: 'https://api.umami.is/v1',
  // One every 6 s at most: far inside Cloud's 50 per 15 s, and light on a small self-hosted server.
  defaultHourlyBudget: 600,
  // Cloud's 50 per 15 s.
  maxHourlyBudget: 12_000,
  minIntervalSeconds: 5,
  fields: ['websiteId', 'apiKey', 'username', 'password'],
  secretFields: ['apiKey', 'password'],
  parse(entry, at, issues) {
    const websiteId = readIdentifier(entry.websiteId, `${at}.websiteId`, 64, issues);
    // null: given but refused already; counted as given, so the message is about the pairing only once.
    const { apiKey, password } = entry as { apiKey?: string | null; password?: string | null };
    const username = entry.username === undefined ? undefined : readIdentifier(entry.username, `${at}.username`, 256, issues);
    const login = username !== undefined || password !== undefined;
    if (apiKey !== undefined && login) issues.push(`${at} takes apiKey (Umami Cloud) or username and password (self-hosted), not both`);
    else if (apiKey === undefined && !login) issues.push(`${at} needs apiKey (Umami Cloud) or username and password (self-hosted)`);
    else if (login && (username === undefined || password === undefined)) issues.push(`${at} needs both username and password to log in`);
    if (websiteId === undefined || apiKey === null || password === null) return undefined;
    return apiKey !== undefined ? { websiteId, apiKey } : { websiteId, username, password };
  },
  windowMinutes: () => 5,
  secrets: (settings) => [settings.apiKey, settings.password].filter((secret): secret is string => secret !== undefined),
  async read(settings, call, state) {
    if (settings.apiKey !== undefined) {
      return active(settings, call, { 'x-umami-api-key': settings.apiKey, Authorization: `Bearer ${settings.apiKey}` });
    }
    const kept = state.get(LOGIN_TOKEN) as string | undefined;
    if (kept !== undefined) {
      const reading = await active(settings, call.withSecrets(kept), { Authorization: `Bearer ${kept}` });
      // A login token expires or is revoked: log in again once, then ask again.
      if (!('failure' in reading) || reading.failure.status !== 401) return reading;
      state.delete(LOGIN_TOKEN);
    }
    const login = await logIn(settings, call);
    if (typeof login !== 'string') return login;
    state.set(LOGIN_TOKEN, login);
    return active(settings, call.withSecrets(login), { Authorization: `Bearer ${login}` });
  },
};

async function active(settings: UmamiSettings, call: SourceCall, auth: Record<string, string>): Promise<SourceReading> {
  const url = `${settings.base}/websites/${encodeURIComponent(settings.websiteId)}/active`;
  const answer = await askJson(call, url, { headers: auth });
  if ('failure' in answer) return answer;
  return countOrFailure(activeVisitors(answer.json), 'its answer (visitors expected)');
}

/** The three shapes the answer has had: `{ "visitors": N }` (2.16 and later), `{ "x": N }` (2.0 to 2.15), `[{ "x": N }]` (1.x). */
function activeVisitors(json: unknown): unknown {
  const value = Array.isArray(json) && json.length === 1 ? json[0] : json;
  if (!isPlainObject(value)) return undefined;
  return 'visitors' in value ? value.visitors : value.x;
}

/** A self-hosted Umami's login token, or the failure of the login, in the relay's words. */
async function logIn(settings: UmamiSettings, call: SourceCall): Promise<string | { readonly failure: UpstreamFailure }> {
  const answer = await askJson(call, `${settings.base}/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: settings.username, password: settings.password }),
  });
  if ('failure' in answer) {
    const { failure } = answer;
    return { failure: { ...failure, reason: `refused the log-in (${failure.reason})` } };
  }
  const json = answer.json;
  if (isPlainObject(json) && json.requiresTwoFactor === true) {
    return {
      failure: {
        kind: 'unauthorized',
        status: 200,
        retryAfterMs: null,
        reason: 'asks this user for a second factor: use a user without two-factor log-in',
        said: null,
      },
    };
  }
  const token = isPlainObject(json) ? json.token : undefined;
  return typeof token === 'string' && /^[\x21-\x7e]{1,4096}$/.test(token) ? token : invalid(200, 'answered the log-in without a token');
}
