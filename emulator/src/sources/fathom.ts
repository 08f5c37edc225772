import type { Hono } from 'hono';
import { STAND_IN_KEYS } from './keys.js';
import { bearerOf, type StandInState } from './stand-in-state.js';

/**
 * Fathom's current visitors as its API reference describes it (usefathom.com/api, its OpenAPI
 * description): `GET /v1/current_visitors?site_id=…` with a Bearer key answers
 * `{ "total": N, "content": [...], "referrers": [...] }` (the lists only with `detailed=true`);
 * 10 requests a minute per user on this endpoint, then 429. Mounted at `/sources/fathom`.
 */
export function mountFathom(app: Hono, state: StandInState): void {
  app.get('/sources/fathom/v1/current_visitors', async (c) => {
    const imposed = await state.imposed('fathom', c);
    if (imposed) return imposed;
    if (bearerOf(c) !== STAND_IN_KEYS.fathom) return c.json({ error: 'Unauthenticated.' }, 401);
    const siteId = c.req.query('site_id');
    if (!siteId) return c.json({ error: 'The site id field is required.' }, 400);
    const count = state.countOf(siteId);
    if (count === undefined) return c.json({ error: 'Site not found' }, 404);
    const rate = state.takeRate('fathom', 10, 60_000);
    if (rate !== true) return c.json({ error: 'Too Many Attempts.' }, 429, { 'Retry-After': String(rate) });
    const detailed = c.req.query('detailed') === 'true';
    return c.json({ total: count, ...(detailed ? { content: [], referrers: [] } : {}) });
  });
}
