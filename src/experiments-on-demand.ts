import type { Variant } from './holdout.js';
import type { ImpressionHost } from './impressions.js';

/**
 * The holdout and impressions live in a file of their own (src/experiments.ts), loaded the way
 * the language files are: only when an element has `holdout > 0` or first shows a count. Every
 * shop pays for the sentence; the experiment's code waits for a page that uses it.
 */
let experiments: typeof import('./experiments.js') | undefined;
let loading: Promise<void> | undefined;

/** The variant while a holdout's draw waits for the experiments file: neither group yet. */
export const UNDECIDED = 'undecided';

/** Starts loading the experiments file once a page; `host` updates when it is in. */
function load(host: ImpressionHost): Promise<void> {
  loading ??= import('./experiments.js').then((module) => {
    experiments = module;
  });
  loading.then(() => host.requestUpdate());
  return loading;
}

/**
 * The element's variant: `shown` without a holdout; with one, `undecided` until the experiments
 * file is in, so a held-out browser never glimpses the sentence.
 */
export function currentVariant(host: ImpressionHost): Variant | typeof UNDECIDED {
  if (!(host.holdout > 0)) return 'shown';
  if (experiments) return experiments.variantFor(host.websiteId?.trim() ?? '', host.holdout);
  load(host);
  return UNDECIDED;
}

/** The element's variant once it is decided: at once without a holdout, else once the experiments file is in. */
export async function decidedVariant(host: ImpressionHost): Promise<Variant> {
  if (currentVariant(host) === UNDECIDED) await load(host);
  return currentVariant(host) as Variant;
}

/** Called at each update that shows a count: starts the impression's watch on `host` once (see `watchImpressions`), once the file is in. */
export function watchImpressions(host: ImpressionHost, showing: () => boolean): void {
  if (experiments) experiments.watchImpressions(host, showing);
  else load(host);
}
