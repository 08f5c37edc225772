// The WordPress plugin's relay route against a bare WordPress REST route that returns a constant,
// on one real WordPress 6.1 (php -S, 8 workers, MariaDB) in the same run; and the plugin zip's size.
// With --pagespeed, also Lighthouse (simulated throttling, as PageSpeed Insights) on a WordPress page
// with the block and the same page without it, alternated.
// Run: npm run build (dist/), then npx tsx bench/wordpress.ts [--pagespeed | --pagespeed-only]

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { configure, type PluginSite, phpValue, startPluginSite } from '../integrations/wordpress/test/support/plugin-site.js';
import { RELAYED, startRecordingUpstream } from '../relay/test/black-box/recording-upstream.js';
import { findChromium } from '../test/browser/support/chromium.js';
import { lighthouseChromeFlags } from './lighthouse-chrome-flags.js';
import { kilobytes, printTable, ratio } from './table.js';

const CONNECTIONS = 16;
const DURATION_SECONDS = 5;
/** In turns, median kept: this 2-core machine is shared, and one run can meet another process's burst. */
const ROUNDS = 5;

/** WordPress's REST API with nothing in the callback: the floor every REST route stands on. */
const CONSTANT_ROUTE = `<?php
add_action( 'rest_api_init', function () {
	register_rest_route( 'bench/v1', '/constant', array(
		'methods'             => 'GET',
		'permission_callback' => '__return_true',
		'callback'            => function () {
			return array( 'currentVisitors' => 1, 'websiteId' => 'bench', 'timestamp' => '2026-01-01T00:00:00.000Z' );
		},
	) );
} );
`;

interface Run {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
}

/**
 * \`CONNECTIONS\` loops of sequential fetches for \`seconds\`. Not autocannon: php -S answers with
 * \`Connection: close\` and no Content-Length, and autocannon counted none of those answers (0 req/s,
 * 0 errors); undici's fetch reads them. The load costs the same CPU for both routes, in this process.
 */
async function load(url: string, seconds: number): Promise<Run> {
  const latencies: number[] = [];
  let failures = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const startedAt = performance.now();
        try {
          const response = await fetch(url);
          await response.arrayBuffer();
          if (response.status === 200) latencies.push(performance.now() - startedAt);
          else failures += 1;
        } catch {
          failures += 1;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? 0;
  return { requestsPerSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99), failures };
}

const LIGHTHOUSE_RUNS = 5;

/** Empties the origin's localStorage in Lighthouse's Chrome, through the DevTools protocol. */
async function clearLocalStorage(port: number, url: string): Promise<void> {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    const page = await browser.contexts()[0]!.newPage();
    await page.goto(new URL('/wp-includes/images/blank.gif', url).href);
    await page.evaluate(() => localStorage.clear());
    await page.close();
  } finally {
    // Disconnects; Lighthouse's Chrome stays up.
    await browser.close();
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * The same page twice, one with the block: FCP, LCP, TBT and CLS, median of cold loads alternated,
 * with WordPress's emoji script (on by default) or without it (a must-use plugin removes it): the
 * block's simulated cost depends on it (see integrations/wordpress/README.md).
 */
async function pageSpeed(site: PluginSite, emoji: boolean): Promise<void> {
  const chromePath = findChromium();
  if (!chromePath) throw new Error('no Chromium for Lighthouse');
  const noEmoji = join(site.root, 'wp-content', 'mu-plugins', 'bench-no-emoji.php');
  if (emoji) rmSync(noEmoji, { force: true });
  else writeFileSync(noEmoji, "<?php remove_action( 'wp_head', 'print_emoji_detection_script', 7 );\n");
  const content =
    '<!-- wp:paragraph --><p>−30% today only, 4 left in stock. A product page of a WordPress shop, with its offer.</p><!-- /wp:paragraph -->';
  const links = site.php<string[]>(
    `$make = function ( $content ) { return get_permalink( wp_insert_post( array( 'post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Offer', 'post_content' => wp_slash( $content ) ) ) ); };
     return array( $make( ${phpValue(content)} ), $make( ${phpValue(`${content}\n<!-- wp:live-visitors/live-visitors /-->`)} ) );`,
  );
  const [{ default: lighthouse }, { launch, Launcher }] = await Promise.all([import('lighthouse'), import('chrome-launcher')]);
  const chrome = await launch({ chromePath, chromeFlags: lighthouseChromeFlags(Launcher.defaultFlags()), logLevel: 'silent' });
  try {
    // The page without the block audited a second time: how far two identical pages land apart here.
    const runs: Record<'without' | 'with' | 'again', Record<'fcp' | 'lcp' | 'tbt' | 'cls', number>[]> = {
      without: [],
      with: [],
      again: [],
    };
    let version = '';
    for (let run = 0; run < LIGHTHOUSE_RUNS; run += 1) {
      for (const [variant, url] of [
        ['without', links[0]!],
        ['with', links[1]!],
        ['again', links[0]!],
      ] as const) {
        // Every load a first visit: the element stores its count in localStorage, which Lighthouse's
        // storage reset leaves alone, and a stored count takes the returning shopper's path.
        await clearLocalStorage(chrome.port, url);
        const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] });
        if (!result || result.lhr.runtimeError) throw new Error(`Lighthouse failed on ${url}`);
        version = result.lhr.lighthouseVersion;
        const numeric = (id: string) => result.lhr.audits[id]?.numericValue ?? Number.NaN;
        runs[variant].push({
          fcp: numeric('first-contentful-paint'),
          lcp: numeric('largest-contentful-paint'),
          tbt: numeric('total-blocking-time'),
          cls: numeric('cumulative-layout-shift'),
        });
      }
    }
    const pick = (variant: 'with' | 'without' | 'again', key: 'fcp' | 'lcp' | 'tbt' | 'cls') =>
      median(runs[variant].map((audit) => audit[key]));
    printTable(
      `Lighthouse ${version} on a WordPress page (test theme, php -S, WordPress's emoji script ${emoji ? 'on (default)' : 'off'}), simulated throttling, mobile, median of ${LIGHTHOUSE_RUNS} loads each, alternated`,
      (['fcp', 'lcp', 'tbt', 'cls'] as const).map((key) => {
        const format = (value: number) => (key === 'cls' ? value.toFixed(3) : `${Math.round(value)} ms`);
        const signed = (difference: number) => `${difference >= 0 ? '+' : '-'}${format(Math.abs(difference))}`;
        return {
          metric: key.toUpperCase(),
          'without the block (anchor)': format(pick('without', key)),
          'with the block': format(pick('with', key)),
          difference: signed(pick('with', key) - pick('without', key)),
          'noise: without, again': signed(pick('again', key) - pick('without', key)),
        };
      }),
    );
  } finally {
    chrome.kill();
  }
}

async function main(): Promise<void> {
  const [site, upstream] = await Promise.all([startPluginSite(), startRecordingUpstream()]);
  try {
    writeFileSync(join(site.root, 'wp-content', 'mu-plugins', 'bench-constant.php'), CONSTANT_ROUTE);
    configure(site, {
      website_id: RELAYED.id,
      token: RELAYED.token,
      base_url: upstream.url,
      interval: 60,
      max_stale: 600,
      hourly_budget: 100,
    });
    if (process.argv.includes('--pagespeed-only')) {
      await pageSpeed(site, true);
      await pageSpeed(site, false);
      return;
    }
    const urls = {
      'bare REST route (constant)': `${site.url}/wp-json/bench/v1/constant`,
      'live-visitors relay route': `${site.url}/wp-json/live-visitors/api/v1/realtime?websiteId=${RELAYED.id}`,
    };
    for (const url of Object.values(urls)) await load(url, 1);
    const runs: Run[][] = Object.values(urls).map(() => []);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [index, url] of Object.values(urls).entries()) runs[index]!.push(await load(url, DURATION_SECONDS));
    }
    const medians = runs.map((ofUrl) => [...ofUrl].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(ROUNDS / 2)]!);
    const floor = medians[0]!.requestsPerSecond;
    printTable(
      `WordPress REST routes, php -S with 8 workers, ${CONNECTIONS} connections, median of ${ROUNDS} runs of ${DURATION_SECONDS} s in turns`,
      Object.keys(urls).map((name, index) => ({
        route: name,
        'req/s': medians[index]!.requestsPerSecond.toFixed(0),
        'p50 ms': medians[index]!.p50Ms.toFixed(0),
        'p99 ms': medians[index]!.p99Ms.toFixed(0),
        failures: medians[index]!.failures,
        'vs bare route': ratio(medians[index]!.requestsPerSecond, floor),
      })),
    );
    const relayed = runs[1]!.reduce((sum, run) => sum + run.requestsPerSecond * DURATION_SECONDS, 0);
    console.log(
      `\nUpstream requests during the relay route's runs: ${upstream.requests.length} (about ${Math.round(relayed).toLocaleString('en')} answered, interval 60 s)`,
    );
    console.log(
      `Plugin zip: ${site.build.zipBytes.toLocaleString('en')} B (${kilobytes(site.build.zipBytes)}), ${site.build.assets.length} asset files`,
    );
    if (process.argv.includes('--pagespeed')) {
      await pageSpeed(site, true);
      await pageSpeed(site, false);
    }
  } finally {
    await upstream.close();
    await site.stop();
  }
}

await main();
