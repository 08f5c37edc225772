// The experiments file (dist/live-visitors-experiments.js): the holdout's draw and the impression's
// watch with its dataLayer push, loaded by src/experiments-on-demand.ts only when a page needs them.
export { variantFor } from './holdout.js';
export { watchImpressions } from './impressions.js';
