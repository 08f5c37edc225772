import type { Hono } from 'hono';
import { STAND_IN_KEYS } from './keys.js';
import { bearerOf, type StandInState } from './stand-in-state.js';

const HOUR_MS = 3_600_000;
const INVALID_KEY_OR_SITE =
  "Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested.";

/**
 * Plausible's Stats API realtime endpoint as its docs describe it (plausible.io/docs/stats-api):
 * `GET /api/v1/stats/realtime/visitors?site_id=…` with a Bearer key answers a bare integer; no
 * key, a bad key or a site the key cannot read answers 401, past 600 requests an hour per key 429
 * (without Retry-After), a missing site_id 400. Mounted at `/sources/plausible`, the relay's `base`.
 */
export function mountPlausible(app: Hono, state: StandInState): void {
  app.get('/sources/plausible/api/v1/stats/realtime/visitors', async (c) => {
    const imposed = await state.imposed('plausible', c);
    if (imposed) return imposed;
    // In the order of Plausible's AuthorizeStatsApiPlug: the key, its hourly limit, then the site.
    if (!c.req.header('authorization')?.startsWith('Bearer ')) {
      return c.json({ error: 'Missing API key. Please use a valid Plausible API key as a Bearer Token.' }, 401);
    }
    if (bearerOf(c) !== STAND_IN_KEYS.plausible) return c.json({ error: INVALID_KEY_OR_SITE }, 401);
    const rate = state.takeRate('plausible', 600, HOUR_MS);
    if (rate !== true) return c.json({ error: 'Too many API requests. Your API key is limited to 600 requests per hour.' }, 429);
    const siteId = c.req.query('site_id');
    if (!siteId) return c.json({ error: 'Missing site ID. Please provide the required site_id parameter with your request.' }, 400);
    const count = state.countOf(siteId);
    return count === undefined ? c.json({ error: INVALID_KEY_OR_SITE }, 401) : c.json(count);
  });
}
