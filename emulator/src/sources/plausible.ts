import type { Hono } from 'hono';
import { STAND_IN_KEYS } from './keys.js';
import { bearerOf, type StandInState } from './stand-in-state.js';

const HOUR_MS = 3_600_000;

/**
 * Plausible's Stats API realtime endpoint as its docs describe it (plausible.io/docs/stats-api):
 * `GET /api/v1/stats/realtime/visitors?site_id=…` with a Bearer key answers a bare integer; a bad
 * key or a site the key cannot read answers 401, a missing site_id 400, and past 600 requests an
 * hour per key 429. Mounted at `/sources/plausible`, which is the `base` a relay is given.
 */
export function mountPlausible(app: Hono, state: StandInState): void {
  app.get('/sources/plausible/api/v1/stats/realtime/visitors', async (c) => {
    const imposed = await state.imposed('plausible', c);
    if (imposed) return imposed;
    const siteId = c.req.query('site_id');
    if (!siteId) return c.json({ error: 'Missing site ID. Please provide the required site_id parameter with your request.' }, 400);
    const count = state.countOf(siteId);
    if (bearerOf(c) !== STAND_IN_KEYS.plausible || count === undefined) {
      return c.json(
        { error: "Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested." },
        401,
      );
    }
    const rate = state.takeRate('plausible', 600, HOUR_MS);
    if (rate !== true) return c.json({ error: 'Too many API requests. Your API key is limited to 600 requests per hour.' }, 429);
    return c.json(count);
  });
}
