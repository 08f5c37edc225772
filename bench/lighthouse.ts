// The demo's script-tag page audited by Lighthouse with the system Chromium, with and without the widget.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { serve } from 'srvx';
import { createEmulator } from '../emulator/src/index.js';
import { findChromium, MISSING_CHROMIUM_MESSAGE } from '../test/browser/support/chromium.js';
import { printTable, ratio } from './table.js';

const RUNS = 3;
const CROWD = 40;
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * demo/script-tag.html as a shop would serve it (the built bundle, the service on the same
 * origin), and the same page without the script tag and the element, from the same server.
 */
async function startDemoSite() {
  const withWidget = await readFile(resolve('demo/script-tag.html'), 'utf8');
  const withoutWidget = withWidget
    .replace(/\s*<script type="module" src="\/live-visitors\.js"><\/script>/, '')
    .replace(/\s*<live-visitors\b[^>]*><\/live-visitors>/, '');
  if (withoutWidget.includes('live-visitors.js"') || withoutWidget.includes('<live-visitors')) {
    throw new Error('demo/script-tag.html changed: the copy without the widget still has its script or element.');
  }
  const files: Record<string, { body: string; type: string }> = {
    '/with-widget.html': { body: withWidget, type: 'text/html' },
    '/without-widget.html': { body: withoutWidget, type: 'text/html' },
    '/live-visitors.js': { body: await readFile(resolve('dist/live-visitors.js'), 'utf8'), type: 'text/javascript' },
  };
  // A steady crowd from the start, as in `npm start`: the page shows a count for the whole audit.
  const emulator = createEmulator({ simulate: CROWD });
  const server = serve({
    port: 0,
    hostname: '127.0.0.1',
    silent: true,
    gracefulShutdown: false,
    fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname.startsWith('/api/')) return emulator.handler(request);
      const file = files[pathname];
      if (!file) return new Response('Not found', { status: 404 });
      return new Response(file.body, { headers: { 'content-type': `${file.type}; charset=utf-8`, 'cache-control': 'no-cache' } });
    },
  });
  await server.ready();
  return {
    url: server.url!.replace(/\/$/, ''),
    close: async () => {
      emulator.dispose();
      await server.close(true);
    },
  };
}

interface Audit {
  performance: number;
  accessibility: number;
  bestPractices: number;
  cls: number;
  tbt: number;
  fcp: number;
  lcp: number;
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
  const title = 'Lighthouse on demo/script-tag.html, with and without the widget';
  const chromePath = findChromium();
  if (!chromePath) {
    console.log(`\n${title}\n\nLighthouse could not run: ${MISSING_CHROMIUM_MESSAGE}`);
    return;
  }
  const site = await startDemoSite();
  let chrome: { port: number; kill(): void } | undefined;
  try {
    const [{ default: lighthouse }, { launch }] = await Promise.all([import('lighthouse'), import('chrome-launcher')]);
    chrome = await launch({ chromePath, chromeFlags: CHROME_FLAGS, logLevel: 'silent' });
    let version = '';
    const audit = async (path: string, throttlingMethod: Throttling): Promise<Audit> => {
      const result = await lighthouse(`${site.url}${path}`, {
        port: chrome!.port,
        output: 'json',
        logLevel: 'error',
        throttlingMethod,
        onlyCategories: ['performance', 'accessibility', 'best-practices'],
      });
      if (!result) throw new Error(`Lighthouse returned no result for ${path}`);
      const { lhr } = result;
      if (lhr.runtimeError) throw new Error(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
      version = lhr.lighthouseVersion;
      const score = (id: string) => Math.round((lhr.categories[id]?.score ?? Number.NaN) * 100);
      const numeric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
      return {
        performance: score('performance'),
        accessibility: score('accessibility'),
        bestPractices: score('best-practices'),
        cls: numeric('cumulative-layout-shift'),
        tbt: numeric('total-blocking-time'),
        fcp: numeric('first-contentful-paint'),
        lcp: numeric('largest-contentful-paint'),
      };
    };
    const runs: Record<Throttling, Record<'with' | 'without', Audit[]>> = {
      simulate: { with: [], without: [] },
      devtools: { with: [], without: [] },
    };
    // Alternated, so a busy moment of the machine hits both pages alike.
    for (const throttling of ['simulate', 'devtools'] as const) {
      for (let run = 0; run < RUNS; run += 1) {
        runs[throttling].without.push(await audit('/without-widget.html', throttling));
        runs[throttling].with.push(await audit('/with-widget.html', throttling));
      }
    }
    const rows: Array<[string, keyof Audit, (value: number) => string]> = [
      ['Performance score', 'performance', String],
      ['Accessibility score', 'accessibility', String],
      ['Best practices score', 'bestPractices', String],
      ['Cumulative layout shift', 'cls', (value) => value.toFixed(3)],
      ['Total blocking time', 'tbt', (value) => `${Math.round(value)} ms`],
      ['First contentful paint', 'fcp', (value) => `${Math.round(value)} ms`],
      ['Largest contentful paint', 'lcp', (value) => `${Math.round(value)} ms`],
    ];
    const scope = `Lighthouse ${version}, default mobile emulation, median of ${RUNS} runs each; storage cleared before each, so every load is cold`;
    printComparison(`${title} (${scope}; simulated throttling, Lighthouse's default)`, rows, runs.simulate);
    // Simulated throttling replays the fast trace on a model of a slow network, and can count a
    // module script that loaded before the first paint in that trace as holding the paint back.
    // Applied throttling slows the real network and CPU: it shows whether a shopper waits longer.
    printComparison(`The same with applied throttling (devtools: slow 4G and 4× CPU slowdown, for real)`, rows.slice(3), runs.devtools);
  } catch (error) {
    // Numbers that were not measured are not printed; the reason is.
    console.log(`\n${title}\n\nLighthouse could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    chrome?.kill();
    await site.close();
  }
}
