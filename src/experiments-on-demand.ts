import type { Variant } from './holdout.js';
import type { LiveVisitors } from './live-visitors.js';

/**
 * The holdout and impressions live in a file of their own (src/experiments.ts), loaded the way
 * the language files are: only when an element has `holdout > 0` or first shows a count. Every
 * shop pays for the sentence; the experiment's code waits for a page that uses it.
 */
let experiments: typeof import('./experiments.js') | undefined;
let loading: Promise<void> | undefined;

/** Starts loading the experiments file once a page; `host` updates when it is in. */
function load(host: LiveVisitors): void {
  loading ??= import('./experiments.js').then((module) => {
    experiments = module;
  });
  loading.then(() => host.requestUpdate());
}

/**
 * The element's variant: `shown` without a holdout; with one, null until the experiments file is
 * in, so a held-out browser never glimpses the sentence.
 */
export function knownVariant(host: LiveVisitors): Variant | null {
  if (!(host.holdout > 0)) return 'shown';
  if (experiments) return experiments.variantFor(host.websiteId?.trim() ?? '', host.holdout);
  load(host);
  return null;
}

/** Called at each update that shows a count: starts the impression's watch on `host` once (see `watchImpressions`), once the file is in. */
export function watchImpressions(host: LiveVisitors, showing: () => boolean): void {
  if (experiments) experiments.watchImpressions(host, showing);
  else load(host);
}
