import { onDemand } from './on-demand.js';

/**
 * The explanation of the number (src/disclosure.ts, dist/live-visitors-disclosure.js): a file of
 * its own, loaded once a sentence shows. Nothing of it is seen before a hover, focus or tap.
 */
export const disclosureFile = onDemand(() => import('./disclosure.js'));
