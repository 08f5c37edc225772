// Lighthouse on the demo's script-tag page and on a heavier product page, with and without the
// widget, in both throttling modes; every load cold (a new origin each time), files compressed,
// the service 250 ms away.
import { findChromium, MISSING_CHROMIUM_MESSAGE } from '../test/browser/support/chromium.js';
import { firstParseTask } from './first-parse-task.js';
import { lighthouseChromeFlags } from './lighthouse-chrome-flags.js';
import { API_LATENCY_MS, type LighthouseSites, PAGES, type PageName, startLighthouseSites } from './lighthouse-site.js';
import { printTable, ratio } from './table.js';

const RUNS = 5;
/** The issue's bar: FCP, LCP and TBT at most this much above the page without the widget, CLS below 0.001. */
const TOLERANCE_MS = 16;

interface Audit {
  performance: number;
  accessibility: number;
  bestPractices: number;
  cls: number;
  tbt: number;
  fcp: number;
  lcp: number;
  /** The page's first parse task (the snippet runs in it): wall time, which the simulation scales into FCP. */
  parseWall: number;
  /** The same task's CPU time: what the page's markup and scripts really cost, whatever else the machine did. */
  parseCpu: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

type Throttling = 'simulate' | 'devtools';

function printComparison(
  title: string,
  rows: Array<[string, keyof Audit, (value: number) => string]>,
  runs: Record<'with' | 'without', Audit[]>,
) {
  const pick = (page: 'with' | 'without', key: keyof Audit) => median(runs[page].map((audit) => audit[key]));
  printTable(
    title,
    rows.map(([metric, key, format]) => ({
      metric,
      'without widget (anchor)': format(pick('without', key)),
      'with widget': format(pick('with', key)),
      difference: `${pick('with', key) >= pick('without', key) ? '+' : '-'}${format(Math.abs(pick('with', key) - pick('without', key)))}`,
      'with vs without': ratio(pick('with', key), pick('without', key)),
    })),
  );
}

export async function benchLighthouse(): Promise<void> {
  const title = 'Lighthouse, with and without the widget';
  const chromePath = findChromium();
  if (!chromePath) {
    console.log(`\n${title}\n\nLighthouse could not run: ${MISSING_CHROMIUM_MESSAGE}`);
    return;
  }
  let chrome: { port: number; kill(): void } | undefined;
  let sites: LighthouseSites | undefined;
  try {
    const [{ default: lighthouse }, { launch, Launcher }] = await Promise.all([import('lighthouse'), import('chrome-launcher')]);
    const chromeFlags = lighthouseChromeFlags(Launcher.defaultFlags());
    [chrome, sites] = await Promise.all([launch({ chromePath, chromeFlags, logLevel: 'silent' }), startLighthouseSites()]);
    let version = '';
    const audit = async (page: PageName, variant: 'with' | 'without', throttlingMethod: Throttling): Promise<Audit> => {
      // A new origin for every run: Lighthouse's storage reset leaves localStorage alone, and a
      // stored count would make the load warm.
      const site = await sites!.open();
      try {
        const url = `${site.url}/${page}/${variant}-widget.html`;
        const result = await lighthouse(url, {
          port: chrome!.port,
          output: 'json',
          logLevel: 'error',
          throttlingMethod,
          onlyCategories: ['performance', 'accessibility', 'best-practices'],
        });
        if (!result) throw new Error(`Lighthouse returned no result for ${page}`);
        const { lhr, artifacts } = result;
        if (lhr.runtimeError) throw new Error(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
        version = lhr.lighthouseVersion;
        const score = (id: string) => Math.round((lhr.categories[id]?.score ?? Number.NaN) * 100);
        const numeric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
        const parse = firstParseTask(artifacts.Trace.traceEvents, url);
        return {
          performance: score('performance'),
          accessibility: score('accessibility'),
          bestPractices: score('best-practices'),
          cls: numeric('cumulative-layout-shift'),
          tbt: numeric('total-blocking-time'),
          fcp: numeric('first-contentful-paint'),
          lcp: numeric('largest-contentful-paint'),
          parseWall: parse.wall,
          parseCpu: parse.cpu,
        };
      } finally {
        await site.close();
      }
    };
    const rows: Array<[string, keyof Audit, (value: number) => string]> = [
      ['Performance score', 'performance', String],
      ['Accessibility score', 'accessibility', String],
      ['Best practices score', 'bestPractices', String],
      ['Cumulative layout shift', 'cls', (value) => value.toFixed(3)],
      ['Total blocking time', 'tbt', (value) => `${Math.round(value)} ms`],
      ['First contentful paint', 'fcp', (value) => `${Math.round(value)} ms`],
      ['Largest contentful paint', 'lcp', (value) => `${Math.round(value)} ms`],
      ['First parse task, wall time (simulated FCP counts it 4×)', 'parseWall', (value) => `${value.toFixed(1)} ms`],
      ['First parse task, CPU time', 'parseCpu', (value) => `${value.toFixed(1)} ms`],
    ];
    const verdicts: string[] = [];
    for (const page of PAGES) {
      for (const throttling of ['simulate', 'devtools'] as const) {
        const runs: Record<'with' | 'without', Audit[]> = { with: [], without: [] };
        // In the default mode, the page without the widget a second time: how far two identical
        // pages land apart on this machine (the noise the 16 ms bar sits in).
        const again: Audit[] = [];
        // Alternated, so a busy moment of the machine hits both variants alike.
        for (let run = 0; run < RUNS; run += 1) {
          runs.without.push(await audit(page, 'without', throttling));
          runs.with.push(await audit(page, 'with', throttling));
          if (throttling === 'simulate') again.push(await audit(page, 'without', throttling));
        }
        const mode =
          throttling === 'simulate'
            ? "simulated throttling (Lighthouse's default, as PageSpeed Insights runs it)"
            : 'applied throttling (devtools: slow 4G and 4× CPU slowdown, for real)';
        printComparison(`${title}: ${page}, ${mode}; Lighthouse ${version}, mobile, median of ${RUNS} cold loads each`, rows, runs);
        const difference = (key: keyof Audit, other = runs.with) =>
          median(other.map((audit) => audit[key])) - median(runs.without.map((audit) => audit[key]));
        // What the snippet really adds to the first parse, against what the simulation was shown.
        const parseTask = `first parse task: CPU ${signed(difference('parseCpu'), 1)}, wall ${signed(difference('parseWall'), 1)}`;
        const noise = again.length
          ? ` (the same page without the widget, audited again: FCP ${signed(difference('fcp', again))}, LCP ${signed(difference('lcp', again))}, TBT ${signed(difference('tbt', again))})`
          : '';
        // A cost is what the widget adds: a page that came out faster with it is noise, not a cost.
        const timing = (['fcp', 'lcp', 'tbt'] as const).every((key) => difference(key) <= TOLERANCE_MS);
        const cls = median(runs.with.map((audit) => audit.cls)) < 0.001;
        verdicts.push(
          `${page}, ${throttling}: FCP ${signed(difference('fcp'))}, LCP ${signed(difference('lcp'))}, TBT ${signed(difference('tbt'))}, CLS ${median(runs.with.map((audit) => audit.cls)).toFixed(4)}: ${timing && cls ? 'no cost' : 'COSTS'}; ${parseTask}${noise}`,
        );
      }
    }
    console.log(
      `\nAt most ${TOLERANCE_MS} ms above the page without the widget, CLS below 0.001 (service ${API_LATENCY_MS} ms away, files brotli-compressed, every load cold):\n${verdicts.map((line) => `- ${line}`).join('\n')}`,
    );
  } catch (error) {
    // Numbers that were not measured are not printed; the reason is.
    console.log(`\n${title}\n\nLighthouse could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    chrome?.kill();
    await sites?.close();
  }
}

const signed = (value: number, digits = 0) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(digits)} ms`;
