// The WordPress plugin's relay route against a bare WordPress REST route that returns a constant,
// on one real WordPress 6.1 (php -S, 8 workers, MariaDB) in the same run; and the plugin zip's size.
// With --pagespeed, also Lighthouse (simulated throttling, as PageSpeed Insights) on a WordPress
// product page with the block, the same page without it, and that page again (the A/A row), alternated,
// with WordPress's emoji script on and off.
// Run: npm run build (dist/), then npx tsx bench/wordpress.ts [--pagespeed | --pagespeed-only] [--runs=N] [--uncompressed] [--near-empty]

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { configure, type PluginSite, phpValue, startPluginSite } from '../integrations/wordpress/test/support/plugin-site.js';
import { RELAYED, type RecordingUpstream, startRecordingUpstream } from '../relay/test/black-box/recording-upstream.js';
import { findChromium } from '../test/browser/support/chromium.js';
import { blockingTimeAfterFirstPaint } from './lighthouse-blocking-time.js';
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

/** Cold loads per variant; `--runs=N` for more. Two identical pages land up to 40 ms apart here. */
const LIGHTHOUSE_RUNS = Number(/^--runs=(\d+)$/.exec(process.argv.find((arg) => arg.startsWith('--runs=')) ?? '')?.[1] ?? 9);
/** The issue's bar: FCP, LCP and TBT at most this much above the page without the block, beyond the A/A noise. */
const TOLERANCE_MS = 16;

const paragraph = (text: string) => `<!-- wp:paragraph --><p>${text}</p><!-- /wp:paragraph -->`;

/**
 * A product page as a shop writes one in the block editor: the offer, the block right under it,
 * then a description several times longer than the block's sentence, so the sentence is not the
 * page's largest text (docs/performance.md, WordPress page in Lighthouse). The page without the
 * block is the same text with the same title.
 */
const PRODUCT_PAGE = {
  title: 'Merino travel sweater',
  offer: paragraph('<strong>€89.00</strong> €62.30: −30% today only, 4 left in stock. Free returns within 30 days.'),
  description: [
    '<!-- wp:heading --><h2>Description</h2><!-- /wp:heading -->',
    paragraph(
      'A fine-knit sweater in 100% merino wool that keeps you warm on a cold platform and cool on a crowded train. It packs into the corner of a carry-on without creasing, dries overnight on a hotel hanger, and does not hold smells, so one sweater does the work of three on a week-long trip.',
    ),
    paragraph(
      'The yarn is 17.5 micron merino from a certified mulesing-free farm, spun and knitted in Portugal. Raglan sleeves leave the shoulders free under a backpack strap; the ribbed cuffs and hem keep their shape after many washes. Machine wash cold on a wool cycle, dry flat.',
    ),
    '<!-- wp:heading --><h2>Details</h2><!-- /wp:heading -->',
    '<!-- wp:list --><ul><li>100% merino wool, 230 g/m²</li><li>Regular fit; the model is 1.82 m and wears M</li><li>Sizes XS to XXL, in charcoal, navy and oat</li><li>Ships in 1 to 2 working days; free returns within 30 days</li></ul><!-- /wp:list -->',
    '<!-- wp:heading --><h2>Size chart</h2><!-- /wp:heading -->',
    `<!-- wp:table --><figure class="wp-block-table"><table><thead><tr><th>Size</th><th>Chest (cm)</th><th>Length (cm)</th><th>Sleeve (cm)</th></tr></thead><tbody>${[
      ['XS', 86, 64, 60],
      ['S', 92, 66, 61],
      ['M', 98, 68, 62],
      ['L', 104, 70, 63],
      ['XL', 110, 72, 64],
      ['XXL', 116, 74, 65],
    ]
      .map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`)
      .join('')}</tbody></table></figure><!-- /wp:table -->`,
    '<!-- wp:heading --><h2>Care</h2><!-- /wp:heading -->',
    paragraph(
      'Wash inside out with like colours, on a wool or hand-wash cycle at 30 °C at most, with a wool detergent and no softener. Do not tumble dry: roll it in a towel to press the water out, then dry it flat in its shape, away from a radiator. A few minutes of steam bring back the knit after a long trip; pilling on the sides in the first weeks is normal and comes off with a wool comb.',
    ),
    '<!-- wp:heading --><h2>Reviews</h2><!-- /wp:heading -->',
    '<!-- wp:quote --><blockquote class="wp-block-quote"><p>Wore it for ten days in Japan, in trains, temples and a rainy Kyoto evening, and it still looked new on the flight home. The M fits true to size.</p><cite>Hanna, Rotterdam</cite></blockquote><!-- /wp:quote -->',
    '<!-- wp:quote --><blockquote class="wp-block-quote"><p>Warm without being bulky, and it does not itch, which I cannot say of any other wool sweater I own. I bought the oat one after the navy.</p><cite>Marc, Lyon</cite></blockquote><!-- /wp:quote -->',
  ].join('\n'),
};

/**
 * With `--near-empty`: a page with nothing but its title and one word above the block, where the
 * sentence is the largest text in the first screen and so becomes the page's LCP (the READMEs say
 * what that costs). Not a page a shop should have; the acceptance run measured it.
 */
const NEAR_EMPTY_PAGE = { title: 'Offer', offer: paragraph('Offer'), description: '' };
const PAGE = process.argv.includes('--near-empty') ? NEAR_EMPTY_PAGE : PRODUCT_PAGE;

/**
 * Shoppers on the site, seen just now, before every audit: the element shows its sentence (at 0
 * visitors it shows nothing, and an audit would measure a block that never paints).
 */
function keepShoppersBrowsing(upstream: RecordingUpstream, shoppers = 23): void {
  for (let shopper = 1; shopper <= shoppers; shopper += 1) upstream.emulator.recordPageview(RELAYED.id, `bench-shopper-${shopper}`);
}

type Variant = 'without' | 'with' | 'again';
type Metric = 'fcp' | 'lcp' | 'tbt' | 'tbtCpu' | 'cls';
const METRIC_NAMES: Record<Metric, string> = {
  fcp: 'FCP',
  lcp: 'LCP',
  tbt: 'TBT',
  tbtCpu: "TBT from the tasks' CPU time (approx.)",
  cls: 'CLS',
};
interface Audit extends Record<Metric, number> {
  /** The document's transfer size, what Lantern's simulated connection downloads. */
  readonly htmlBytes: number;
  /** Lighthouse's selector of the largest contentful element. */
  readonly lcpElement: string;
}

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

/** The two pages: the page without the block, and the same page with the block under the offer. */
function makePages(site: PluginSite): { without: string; with: string } {
  const { title, offer, description } = PAGE;
  const [without, withBlock] = site.php<string[]>(
    `$make = function ( $content ) { return get_permalink( wp_insert_post( array( 'post_type' => 'page', 'post_status' => 'publish', 'post_title' => ${phpValue(title)}, 'post_content' => wp_slash( $content ) ) ) ); };
     return array( $make( ${phpValue(`${offer}\n${description}`)} ), $make( ${phpValue(`${offer}\n<!-- wp:live-visitors/live-visitors /-->\n${description}`)} ) );`,
  );
  return { without: without!, with: withBlock! };
}

/**
 * Round trips Lantern's simulated connection takes to download \`bytes\` on a new connection (its
 * own TCP model: 10 segments of 1,460 B in the first round trip, then slow start), and the size at
 * which one more begins: a page that grows past it pays a whole round trip, whatever added the bytes.
 */
async function simulatedRoundTrips(bytes: number, throttling: { rttMs?: number; throughputKbps?: number }) {
  const { Simulation } = await import('lighthouse/core/lib/lantern/lantern.js');
  const roundTrips = (size: number) =>
    new Simulation.TCPConnection(
      throttling.rttMs ?? 150,
      (throttling.throughputKbps ?? 1638.4) * 1024,
      0,
      false,
      false,
    ).simulateDownloadUntil(size).roundTrips;
  const count = roundTrips(bytes);
  let [low, high] = [bytes, bytes + 1_000_000];
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (roundTrips(middle) > count) high = middle;
    else low = middle;
  }
  return { count, nextAt: high };
}

/**
 * PHP's own gzip for WordPress's pages, as hosts serve HTML (Apache's mod_deflate, nginx's gzip or
 * this same setting); `--uncompressed` leaves them as php -S sends them. The static files php -S
 * serves itself stay uncompressed either way, the same for every page.
 */
function compressPages(site: PluginSite, compress: boolean): void {
  const file = join(site.root, 'wp-content', 'mu-plugins', 'bench-compression.php');
  if (compress) writeFileSync(file, "<?php ini_set( 'zlib.output_compression', '1' );\n");
  else rmSync(file, { force: true });
}
const COMPRESSED = !process.argv.includes('--uncompressed');

/**
 * The product page without the block, with it, and without it again (the A/A row: how far two
 * identical pages land apart on this machine), alternated, every load a first visit; FCP, LCP, TBT
 * and CLS as medians, with WordPress's emoji script (on by default) or without it.
 */
async function pageSpeed(
  site: PluginSite,
  upstream: RecordingUpstream,
  links: { without: string; with: string },
  emoji: boolean,
): Promise<void> {
  const chromePath = findChromium();
  if (!chromePath) throw new Error('no Chromium for Lighthouse');
  const noEmoji = join(site.root, 'wp-content', 'mu-plugins', 'bench-no-emoji.php');
  if (emoji) rmSync(noEmoji, { force: true });
  // What the common "disable emojis" snippets remove from the front end: the detection script and its style.
  else
    writeFileSync(
      noEmoji,
      "<?php remove_action( 'wp_head', 'print_emoji_detection_script', 7 );\nremove_action( 'wp_print_styles', 'print_emoji_styles' );\n",
    );
  const [{ default: lighthouse }, { launch, Launcher }] = await Promise.all([import('lighthouse'), import('chrome-launcher')]);
  const chrome = await launch({ chromePath, chromeFlags: lighthouseChromeFlags(Launcher.defaultFlags()), logLevel: 'silent' });
  try {
    const runs: Record<Variant, Audit[]> = { without: [], with: [], again: [] };
    let version = '';
    let throttling = {};
    for (let run = 0; run < LIGHTHOUSE_RUNS; run += 1) {
      for (const [variant, url] of [
        ['without', links.without],
        ['with', links.with],
        ['again', links.without],
      ] as const) {
        // Every load a first visit: the element stores its count in localStorage, which Lighthouse's
        // storage reset leaves alone, and a stored count takes the returning shopper's path.
        await clearLocalStorage(chrome.port, url);
        keepShoppersBrowsing(upstream);
        const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] });
        if (!result || result.lhr.runtimeError) throw new Error(`Lighthouse failed on ${url}`);
        const { lhr } = result;
        version = lhr.lighthouseVersion;
        throttling = lhr.configSettings.throttling;
        const numeric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
        type Items = { items?: Array<{ url?: string; transferSize?: number; items?: Array<{ node?: { selector?: string } }> }> };
        const requests = (lhr.audits['network-requests']?.details as Items | undefined)?.items ?? [];
        const lcpNode = ((lhr.audits['largest-contentful-paint-element']?.details as Items | undefined)?.items?.[0]?.items ?? [])[0]?.node;
        runs[variant].push({
          fcp: numeric('first-contentful-paint'),
          lcp: numeric('largest-contentful-paint'),
          tbt: numeric('total-blocking-time'),
          tbtCpu: blockingTimeAfterFirstPaint(result.artifacts.Trace.traceEvents, url).cpu,
          cls: numeric('cumulative-layout-shift'),
          htmlBytes: requests.find((request) => request.url === url)?.transferSize ?? Number.NaN,
          lcpElement: lcpNode?.selector ?? 'none',
        });
      }
    }
    const pick = (variant: Variant, key: Metric | 'htmlBytes') => median(runs[variant].map((audit) => audit[key]));
    printTable(
      `Lighthouse ${version} on a WordPress ${PAGE === PRODUCT_PAGE ? 'product' : 'near-empty'} page (test theme, php -S, HTML ${COMPRESSED ? 'gzip-compressed' : 'uncompressed'}, WordPress's emoji script ${emoji ? 'on (default)' : 'off'}), simulated throttling, mobile, median of ${LIGHTHOUSE_RUNS} first visits each, alternated; within: at most ${TOLERANCE_MS} ms (CLS 0.001) above the page without the block, beyond the A/A difference`,
      (['fcp', 'lcp', 'tbt', 'tbtCpu', 'cls'] as const).map((key) => {
        const format = (value: number) => (key === 'cls' ? value.toFixed(3) : `${Math.round(value)} ms`);
        const signed = (difference: number) => `${difference >= 0 ? '+' : '-'}${format(Math.abs(difference))}`;
        const difference = pick('with', key) - pick('without', key);
        const noise = pick('again', key) - pick('without', key);
        const within = key === 'cls' ? difference < 0.001 : difference <= TOLERANCE_MS + Math.abs(noise);
        return {
          metric: METRIC_NAMES[key],
          'without the block (anchor)': format(pick('without', key)),
          'with the block': format(pick('with', key)),
          difference: signed(difference),
          'A/A: without, again': signed(noise),
          verdict: within ? 'within' : 'COSTS',
        };
      }),
    );
    const [without, withBlock] = [pick('without', 'htmlBytes'), pick('with', 'htmlBytes')];
    const [tripsWithout, tripsWith] = await Promise.all([
      simulatedRoundTrips(without, throttling),
      simulatedRoundTrips(withBlock, throttling),
    ]);
    console.log(
      `\nHTML as sent: ${without.toLocaleString('en')} B without the block, ${withBlock.toLocaleString('en')} B with it (+${(withBlock - without).toLocaleString('en')} B). ` +
        `Lantern's new connection takes ${tripsWithout.count} and ${tripsWith.count} round trips for them (handshake included); the next one starts at ${tripsWithout.nextAt.toLocaleString('en')} B` +
        (tripsWith.count > tripsWithout.count
          ? `: the block's bytes cross it here, so FCP and LCP pay a round trip (docs/performance.md).`
          : '.'),
    );
    const elements = (variant: Variant) => {
      const counts = new Map<string, number>();
      for (const { lcpElement } of runs[variant]) counts.set(lcpElement, (counts.get(lcpElement) ?? 0) + 1);
      return [...counts].map(([selector, count]) => `${selector} (${count} of ${LIGHTHOUSE_RUNS})`).join(', ');
    };
    console.log(`Largest contentful element: without the block ${elements('without')}; with it ${elements('with')}.`);
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
      const links = makePages(site);
      compressPages(site, COMPRESSED);
      await pageSpeed(site, upstream, links, true);
      await pageSpeed(site, upstream, links, false);
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
      const links = makePages(site);
      compressPages(site, COMPRESSED);
      await pageSpeed(site, upstream, links, true);
      await pageSpeed(site, upstream, links, false);
    }
  } finally {
    await upstream.close();
    await site.stop();
  }
}

await main();
