import type { Variant } from './holdout.js';
import type { ImpressionHost } from './impressions.js';
import { onDemand } from './on-demand.js';

/**
 * The holdout and impressions live in a file of their own (src/experiments.ts,
 * dist/live-visitors-experiments.js), loaded only when an element has `holdout > 0` or first
 * shows a count: the experiment's code waits for a page that uses it.
 */
const experiments = onDemand(() => import('./experiments.js'));

/** The variant while a holdout's draw waits for the experiments file: neither group yet. */
export const UNDECIDED = 'undecided';

/**
 * The element's variant: `shown` without a holdout; with one, `undecided` until the experiments
 * file is in, so a held-out browser never glimpses the sentence.
 */
export function currentVariant(host: ImpressionHost): Variant | typeof UNDECIDED {
  if (!(host.holdout > 0)) return 'shown';
  return experiments.get(host)?.variantFor(host.websiteId?.trim() ?? '', host.holdout) ?? UNDECIDED;
}

/** The element's variant once it is decided: at once without a holdout, else once the experiments file is in. */
export async function decidedVariant(host: ImpressionHost): Promise<Variant> {
  if (currentVariant(host) === UNDECIDED) await experiments.loaded();
  return currentVariant(host) as Variant;
}

/** Called at each update that shows a count: starts the impression's watch on `host` once (see `watchImpressions`), once the file is in. */
export function watchImpressions(host: ImpressionHost, showing: () => boolean): void {
  experiments.get(host)?.watchImpressions(host, showing);
}
