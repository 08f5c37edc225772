import { environment, withStorage } from './realtime/environment.js';

/** Whether a browser sees the sentence, or is held out of it as the experiment's control group. */
export type Variant = 'shown' | 'holdout';

/** The largest share of browsers a holdout may keep the sentence from. */
export const MAX_HOLDOUT = 0.9;

/** Where a browser keeps its draw for a website (no count: the snippet must not take it for one). */
export const holdoutKey = (websiteId: string) => `live-visitors:holdout:${websiteId}`;

/** This page's draws by website, so every element of a website agrees even without storage. */
const draws = new Map<string, number>();

/**
 * The browser's variant for a website. Each browser draws one number in [0, 1) per website and
 * keeps it in localStorage (the website's ID is the key; no token is ever stored), so elements,
 * tabs and page loads agree. Drawn numbers below `fraction` are held out: raising the fraction
 * only moves more browsers into the holdout, never shuffles the others.
 */
export function variantFor(websiteId: string, fraction: number): Variant {
  if (!(fraction > 0)) return 'shown';
  const env = environment();
  const key = holdoutKey(websiteId);
  let draw = draws.get(key);
  if (draw === undefined) {
    const stored = Number.parseFloat(withStorage(env, (storage) => storage.getItem(key)) ?? '');
    draw = stored >= 0 && stored < 1 ? stored : env.random();
    if (draw !== stored) withStorage(env, (storage) => storage.setItem(key, String(draw)));
    draws.set(key, draw);
  }
  return draw < Math.min(fraction, MAX_HOLDOUT) ? 'holdout' : 'shown';
}
