import type { Context, Hono } from 'hono';
import { STAND_IN_KEYS } from './keys.js';
import type { StandInState } from './stand-in-state.js';

/**
 * Matomo's Reporting API as its reference and the Live plugin's API.php describe it:
 * `{base}/index.php?module=API&method=Live.getCounters&idSite=…&lastMinutes=…&format=JSON`, the
 * parameters read from the query and a POST body alike (`token_auth` belongs in the body);
 * counters as strings in a one-row array, and errors as `{ "result": "error", "message": … }`
 * with status 200. Mounted at `/sources/matomo`. `tokenInUrl` counts requests that put the token
 * in the URL, which the relay must never do.
 */
export class MatomoStandIn {
  readonly #state: StandInState;
  tokenInUrl = 0;

  constructor(state: StandInState) {
    this.#state = state;
  }

  mount(app: Hono): void {
    app.on(['GET', 'POST'], '/sources/matomo/index.php', (c) => this.#answer(c));
  }

  async #answer(c: Context): Promise<Response> {
    const imposed = await this.#state.imposed('matomo', c);
    if (imposed) return imposed;
    const query = new URLSearchParams(new URL(c.req.url).search);
    const body = c.req.method === 'POST' ? new URLSearchParams(await c.req.text()) : new URLSearchParams();
    const read = (name: string) => body.get(name) ?? query.get(name);
    if (query.has('token_auth')) this.tokenInUrl += 1;
    if (read('module') !== 'API' || read('method') !== 'Live.getCounters') return error(c, 'The requested method is not available here.');
    if (read('format')?.toUpperCase() !== 'JSON') return c.text('format must be JSON for this stand-in', 400);
    const idSite = read('idSite') ?? '';
    if (read('token_auth') !== STAND_IN_KEYS.matomo) {
      return error(c, `You can't access this resource as it requires 'view' access for the website id = ${idSite}.`);
    }
    const lastMinutes = read('lastMinutes');
    if (!lastMinutes || !/^\d+$/.test(lastMinutes)) return error(c, "Please specify a value for 'lastMinutes'.");
    const siteId = this.#state.siteAt(idSite);
    const count = siteId === undefined ? undefined : this.#state.countOf(siteId);
    if (count === undefined) return error(c, `An unexpected website was found in the request: website id was set to '${idSite}' .`);
    return c.json([counters(count, read('showColumns'), read('hideColumns'))]);
  }
}

/**
 * The counters as Matomo 4+ builds them: only the columns `showColumns` names (all when absent),
 * less those of `hideColumns`; each the string of its SQL count, except that when the visits
 * counted are none the others are not queried and are the number 0.
 */
function counters(count: number, showColumns: string | null, hideColumns: string | null): Record<string, string | number> {
  const shown = (column: string) =>
    (!showColumns || showColumns.split(',').includes(column)) && !(hideColumns ?? '').split(',').includes(column);
  const visits = shown('visits') ? String(count) : undefined;
  const queried = (value: number) => (visits === '0' ? 0 : String(value));
  const row: Record<string, string | number> = {};
  if (visits !== undefined) row.visits = visits;
  if (shown('actions')) row.actions = queried(count * 2);
  if (shown('visitors')) row.visitors = queried(count);
  if (shown('visitsConverted')) row.visitsConverted = queried(0);
  return row;
}

function error(c: Context, message: string): Response {
  return c.json({ result: 'error', message });
}
