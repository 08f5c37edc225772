// @vitest-environment node
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAYED, type RecordingUpstream, startRecordingUpstream } from '../../../relay/test/black-box/recording-upstream.js';
import { StallMeter } from '../../../relay/test/support/stall-meter.js';
import { launchChromium } from '../../../test/browser/support/chromium.js';
import { readWidgets } from '../../../test/browser/support/widget-probe.js';
import { type Answer, toAnswer } from '../../../test/support/network.js';
import { collapseWhitespace, readmeSnippet } from '../../../test/support/readme-snippet.js';
import { configure, type PluginSite, phpValue, startPluginSite } from './support/plugin-site.js';
import { get, logIn, SETTINGS_PAGE, saveSettings } from './support/wordpress-http.js';
import { ADMIN, EDITOR } from './support/wordpress-site.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let site: PluginSite;
let upstream: RecordingUpstream;
let browser: Browser;
/** Everything a shopper or a REST client was sent, for the token scan at the end. */
const served: Answer[] = [];
const pages: Record<'block' | 'shortcode' | 'product', string> = { block: '', shortcode: '', product: '' };

const SENTENCE = '{count} shoppers <b>here</b> <img src=x onerror="window.hacked=1"> now';
const BLOCK = (attributes: Record<string, unknown>) =>
  `<!-- wp:live-visitors/live-visitors ${JSON.stringify(attributes).replace(/</g, '\\u003c').replace(/>/g, '\\u003e')} /-->`;

function baseSettings(interval = 60, maxStale = 600): Record<string, unknown> {
  return {
    website_id: RELAYED.id,
    token: RELAYED.token,
    base_url: upstream.url,
    interval,
    max_stale: maxStale,
    hourly_budget: 1000,
    show_on_products: true,
  };
}

/** The service counts `count` visitors, and the plugin forgets what it cached (so the next page asks). */
function setVisitors(count: number, settings = baseSettings()): void {
  upstream.emulator.reset();
  for (let index = 0; index < count; index += 1) upstream.emulator.recordPageview(RELAYED.id, `visitor-${index}`);
  configure(site, settings);
}

async function fetchPage(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const answer = await get(site, path, headers);
  served.push(answer);
  return answer;
}

async function relayAnswer(headers: Record<string, string> = {}): Promise<Answer> {
  return fetchPage(`/wp-json/live-visitors/api/v1/realtime?websiteId=${RELAYED.id}`, headers);
}

/** A first visit in a fresh Chromium context: the page, its element's script, its count. */
async function visit(path: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/assets/live-visitors.js')) scripts.push(request.url());
  });
  await page.goto(`${site.url}${path}`);
  // Loaded half a second after `load`, then asked: every element has left `loading`.
  await page.waitForFunction(
    () => [...document.querySelectorAll('live-visitors')].every((el) => (el.getAttribute('state') ?? 'loading') !== 'loading'),
    null,
    {
      timeout: 15_000,
    },
  );
  const widgets = await readWidgets(page);
  const attributes = await page.evaluate(() =>
    [...document.querySelectorAll('live-visitors')].map((el) => Object.fromEntries([...el.attributes].map((a) => [a.name, a.value]))),
  );
  const timing = await page.evaluate(() => ({
    firstPaint: performance.getEntriesByType('paint')[0]?.startTime ?? Number.NaN,
    script:
      performance.getEntriesByType('resource').find((entry) => /\/assets\/live-visitors\.js/.test(entry.name))?.startTime ?? Number.NaN,
    hacked: (window as { hacked?: number }).hacked ?? 0,
    markupInShadow: [...document.querySelectorAll('live-visitors')].some((el) => el.shadowRoot?.querySelector('b, img') !== null),
  }));
  await context.close();
  return { widgets, attributes, scripts, timing };
}

beforeAll(async () => {
  [site, upstream, browser] = await Promise.all([startPluginSite(), startRecordingUpstream(), launchChromium()]);
  configure(site, baseSettings());
  const ids = site.php<number[]>(
    `kses_remove_filters();
     $make = function ( $title, $content, $meta = array() ) {
       return wp_insert_post( array( 'post_type' => 'page', 'post_status' => 'publish', 'post_title' => $title, 'post_content' => wp_slash( $content ), 'meta_input' => $meta ) );
     };
     $blocks = ${phpValue(`${BLOCK({ min: 3, sentence: SENTENCE, compactNumbers: true, explanation: false, holdout: 0 })}\n<!-- wp:paragraph --><p>Offer: −30% today.</p><!-- /wp:paragraph -->\n${BLOCK({})}`)};
     return array(
       $make( 'Block page', $blocks ),
       $make( 'Shortcode page', ${phpValue('<p>Offer</p>[live_visitors min="2"] [live_visitors]')} ),
       $make( 'Product page', ${phpValue('<p>A product.</p>')}, array( 'live_visitors_test_product' => '1' ) ),
     );`,
  );
  const links = site.php<string[]>(`return array_map( 'get_permalink', ${phpValue(ids)} );`);
  const [block, shortcode, product] = links.map((link) => new URL(link).pathname);
  Object.assign(pages, { block, shortcode, product });
});

afterAll(async () => {
  await browser?.close();
  await upstream?.close();
  await site?.stop();
});

describe('the element on WordPress pages, in Chromium', () => {
  it('shows the count of a block page, with the block’s settings as the element’s attributes and markup shown as text', async () => {
    setVisitors(1234);
    const { widgets, attributes, scripts, timing } = await visit(pages.block);
    expect(attributes[0]).toMatchObject({
      'website-id': RELAYED.id,
      'api-base': '/wp-json/live-visitors',
      min: '3',
      text: SENTENCE,
      notation: 'compact',
      disclosure: 'off',
    });
    expect(attributes[0]).not.toHaveProperty('token');
    expect(attributes[0]).not.toHaveProperty('holdout');
    expect(widgets[0]).toMatchObject({ state: 'live', count: 1234 });
    expect(widgets[0]!.text).toBe('1.2K shoppers <b>here</b> <img src=x onerror="window.hacked=1"> now');
    expect(timing.markupInShadow).toBe(false);
    expect(timing.hacked).toBe(0);
    // The second block, with no settings of its own: the element's own sentence.
    expect(widgets[1]).toMatchObject({ state: 'live', count: 1234 });
    expect(widgets[1]!.text).toMatch(/1,234/);
    // One script for two blocks, and not before the first paint.
    expect(scripts).toHaveLength(1);
    expect(timing.script).toBeGreaterThan(timing.firstPaint);
  });

  it('prints the README’s loader once, in <head> when the content has the element, with the plugin’s copy of the script', async () => {
    const html = (await fetchPage(pages.block)).text;
    // WordPress 6.1 adds type="text/javascript" unless the theme declares html5 scripts.
    const loaders = [...html.matchAll(/<script[^>]* id="live-visitors-loader"[^>]*>([\s\S]*?)<\/script>/g)];
    expect(loaders).toHaveLength(1);
    // In <head>, and before any stylesheet: after a pending one, an inline script holds the parser.
    expect(html.indexOf('id="live-visitors-loader"')).toBeLessThan(html.indexOf('</head>'));
    expect(html.indexOf('id="live-visitors-loader"')).toBeLessThan(html.indexOf("rel='stylesheet'"));
    expect(html.indexOf("rel='stylesheet'")).toBeGreaterThan(0);
    const scriptUrl = `${site.url}/wp-content/plugins/live-visitors/assets/live-visitors.js`;
    const readme = readmeSnippet(scriptUrl).script.replace(/^<script>|<\/script>$/g, '');
    expect(collapseWhitespace(loaders[0]![1]!)).toBe(collapseWhitespace(readme));
    expect((await fetch(scriptUrl)).status).toBe(200);
  });

  it('shows the count of a shortcode page, with the shortcode’s min', async () => {
    setVisitors(1);
    const below = await visit(pages.shortcode);
    // min="2": one visitor is below it, so that element shows nothing; the other shows "1".
    expect(below.attributes[0]).toMatchObject({ min: '2' });
    expect(below.widgets[0]!.text).toBe('');
    expect(below.widgets[1]).toMatchObject({ state: 'live', count: 1 });
    expect(below.scripts).toHaveLength(1);
    setVisitors(7);
    const above = await visit(pages.shortcode);
    expect(above.widgets.map((widget) => widget.count)).toEqual([7, 7]);
    expect(above.widgets[0]!.text).toMatch(/7/);
  });

  it('gives every shortcode attribute to the element, escaped, with the holdout capped at 0.9', () => {
    const html = site.php<string>(
      `return do_shortcode( ${phpValue('[live_visitors min="4.2" text="say \'hi\' & <b>{count}</b>" notation="compact" disclosure="off" holdout="2"]')} );`,
    );
    expect(html).toBe(
      `<live-visitors website-id="${RELAYED.id}" api-base="/wp-json/live-visitors" interval="60" min="5" text="say &#039;hi&#039; &amp; &lt;b&gt;{count}&lt;/b&gt;" notation="compact" disclosure="off" holdout="0.9" style="display:block;min-height:2lh"></live-visitors>`,
    );
  });

  it('places the element under the price on product pages through WooCommerce’s single-product hook (run by the test theme)', async () => {
    const html = (await fetchPage(pages.product)).text;
    const price = html.indexOf('class="price"');
    const element = html.indexOf('<live-visitors');
    const excerpt = html.indexOf('woocommerce-product-details__short-description');
    expect(price).toBeGreaterThan(0);
    expect(element).toBeGreaterThan(price);
    expect(excerpt).toBeGreaterThan(element);
    expect(html.match(/id="live-visitors-loader"/g)).toHaveLength(1);
    setVisitors(5);
    expect((await visit(pages.product)).widgets).toMatchObject([{ state: 'live', count: 5 }]);

    configure(site, { ...baseSettings(), show_on_products: false });
    const without = (await fetchPage(pages.product)).text;
    expect(without).not.toContain('<live-visitors');
    expect(without).not.toContain('live-visitors-loader');
    configure(site, baseSettings());
  });

  it('while the service fails: the last good count (stale), then the fallback once maxStale has passed', async () => {
    // maxStale leaves a visit's worth of time (measured here, three times over) between the
    // interval's end and maxStale, so a busy machine's slow visit still lands while it is stale.
    setVisitors(9, baseSettings(2, 600));
    const measuredAt = Date.now();
    await visit(pages.shortcode);
    const visitS = Math.ceil((Date.now() - measuredAt) / 1000);
    const interval = 2;
    const maxStale = interval + 3 * visitS + 1;
    setVisitors(9, baseSettings(interval, maxStale));
    try {
      expect((await visit(pages.shortcode)).widgets[1]).toMatchObject({ state: 'live', count: 9 });
      const fetchedAt = upstream.requests.at(-1)!.atMs;
      upstream.emulator.setFault({ kind: 'server-error' });
      await sleep(Math.max(0, fetchedAt + interval * 1000 + 500 - Date.now()));
      const stale = await visit(pages.shortcode);
      expect(stale.widgets[1]).toMatchObject({ state: 'stale', count: 9 });
      await sleep(Math.max(0, fetchedAt + maxStale * 1000 + 500 - Date.now()));
      const gone = await visit(pages.shortcode);
      expect(gone.widgets[1]).toMatchObject({ state: 'unavailable', count: null, text: '' });
    } finally {
      // Never left failing for the tests after this one.
      upstream.emulator.clearFault();
      configure(site, baseSettings());
    }
  });
});

describe('the relay route under load', () => {
  it('50 concurrent page views and their element requests over three intervals cost at most one upstream request per interval', async () => {
    const interval = 2;
    configure(site, baseSettings(interval, 60));
    const before = upstream.requests.length;
    const stalls = new StallMeter();
    const startedAt = Date.now();
    for (let wave = 0; wave < 3; wave += 1) {
      await sleep(Math.max(0, startedAt + wave * (interval * 1000 + 100) - Date.now()));
      const answers = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const page = await fetchPage(pages.block);
          expect(page.status).toBe(200);
          return relayAnswer();
        }),
      );
      for (const answer of answers) expect(answer.status).toBe(200);
    }
    const requests = upstream.requests.slice(before);
    const elapsed = (Date.now() - startedAt) / 1000;
    const gaps = requests.slice(1).map((request, index) => request.atMs - requests[index]!.atMs);
    // The recording upstream, in this process, notes an arrival late by as long as the process stalled.
    stalls.stop();
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(interval * 1000 - 25 - stalls.longestMs);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.length).toBeLessThanOrEqual(Math.ceil(elapsed / interval));
    console.info(
      `WordPress: ${requests.length} upstream request(s) for 3 × 50 concurrent page views + element requests over ${elapsed.toFixed(1)} s (interval ${interval} s)`,
    );
  });

  it('answers logged-in users with the same cacheable answer, not WordPress’s no-cache headers', async () => {
    configure(site, baseSettings(60, 600));
    const cookie = await logIn(site, ADMIN);
    const nonce = (await get(site, '/wp-admin/admin-ajax.php?action=rest-nonce', { Cookie: cookie })).text.trim();
    const answer = await relayAnswer({ Cookie: cookie, 'X-WP-Nonce': nonce });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=60, stale-if-error=540');
    expect(answer.headers.get('expires')).toBeNull();
  });

  it('works without pretty permalinks: the element gets /index.php/wp-json/live-visitors, which answers, and ?rest_route= answers too', async () => {
    site.php(`update_option( 'permalink_structure', '' ); flush_rewrite_rules( false ); return true;`);
    try {
      const id = site.php<number>(`return url_to_postid( home_url( ${phpValue(pages.block)} ) ) ?: get_page_by_title( 'Block page' )->ID;`);
      const html = (await fetchPage(`/?page_id=${id}`)).text;
      expect(html).toContain('api-base="/index.php/wp-json/live-visitors"');
      for (const path of [
        `/index.php/wp-json/live-visitors/api/v1/realtime?websiteId=${RELAYED.id}`,
        `/?rest_route=/live-visitors/api/v1/realtime&websiteId=${RELAYED.id}`,
      ]) {
        const answer = await fetchPage(path);
        expect(answer.status).toBe(200);
        expect((answer.json as { websiteId: string }).websiteId).toBe(RELAYED.id);
      }
    } finally {
      site.php(`update_option( 'permalink_structure', '/%postname%/' ); flush_rewrite_rules( false ); return true;`);
    }
  });
});

describe('Settings → Live visitors', () => {
  const valid = () => ({
    website_id: RELAYED.id,
    token: '',
    base_url: upstream.url,
    interval: '60',
    max_stale: '600',
    hourly_budget: '100',
    sentence: '{count} here',
  });
  const stored = () => site.php<Record<string, unknown>>(`return get_option( 'live_visitors_settings' );`);

  it('saves, then shows the token masked: never its value', async () => {
    const cookie = await logIn(site, ADMIN);
    const { post, page } = await saveSettings(site, cookie, { ...valid(), token: RELAYED.token });
    served.push(page);
    expect(post.status).toBe(302);
    expect(page.text).toContain('Settings saved.');
    expect(stored()).toMatchObject({ website_id: RELAYED.id, token: RELAYED.token, interval: 60, sentence: '{count} here' });
    expect(page.text).toContain('A token is saved (hidden)');
    expect(page.text).toMatch(/<input type="password" id="live_visitors_token" name="live_visitors_settings\[token\]" value=""/);
    // An empty token field keeps the saved token.
    await saveSettings(site, cookie, { ...valid(), sentence: 'changed {count}' });
    expect(stored()).toMatchObject({ token: RELAYED.token, sentence: 'changed {count}' });
  });

  it.each([
    ['website_id', { website_id: '' }, 'Website ID:'],
    ['base_url', { base_url: 'http://analytics.example.com' }, 'Service base URL:'],
    ['base_url', { base_url: 'ftp://127.0.0.1' }, 'Service base URL:'],
    ['interval', { interval: 'sixty' }, 'Interval:'],
    ['interval', { interval: '1.5' }, 'Interval:'],
    ['hourly_budget', { hourly_budget: '100/h' }, 'Hourly limit:'],
    ['max_stale', { max_stale: '5' }, 'Keep the last count for:'],
    ['token', { token: 'Bearer abc def' }, 'API token:'],
  ])('refuses a bad %s with a notice naming the field, and saves nothing else of the form', async (field, bad, label) => {
    const cookie = await logIn(site, ADMIN);
    const before = stored();
    const { page } = await saveSettings(site, cookie, { ...valid(), sentence: 'would have changed {count}', ...bad });
    expect(page.text).toMatch(new RegExp(`id=['"]setting-error-live_visitors_${field}['"] class=['"][^'"]*notice-error`));
    expect(page.text).toContain(label);
    expect(page.text).not.toContain('Settings saved.');
    expect(stored()).toEqual(before);
  });

  it('is closed to users without manage_options: 403 on the admin page, on options.php and through the REST API', async () => {
    const editor = await logIn(site, EDITOR);
    expect((await get(site, SETTINGS_PAGE, { Cookie: editor })).status).toBe(403);
    const before = stored();
    const post = await toAnswer(
      await fetch(`${site.url}/wp-admin/options.php`, {
        method: 'POST',
        redirect: 'manual',
        headers: { Cookie: editor },
        body: new URLSearchParams({ option_page: 'live_visitors', action: 'update', 'live_visitors_settings[website_id]': 'hijacked' }),
      }),
    );
    expect(post.status).toBe(403);
    expect(stored()).toEqual(before);

    const passwords = site.php<Record<string, string>>(
      `$make = function ( $login ) { return WP_Application_Passwords::create_new_application_password( get_user_by( 'login', $login )->ID, array( 'name' => 'tests' ) )[0]; };
       return array( 'editor' => $make( '${EDITOR.login}' ), 'admin' => $make( '${ADMIN.login}' ) );`,
    );
    const basic = (login: string, password: string) => ({
      Authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
    });
    expect((await fetchPage('/wp-json/wp/v2/settings', basic(EDITOR.login, passwords.editor!))).status).toBe(403);
    const write = await fetch(`${site.url}/wp-json/wp/v2/settings`, {
      method: 'POST',
      headers: { ...basic(EDITOR.login, passwords.editor!), 'Content-Type': 'application/json' },
      body: JSON.stringify({ live_visitors_settings: { website_id: 'hijacked' } }),
    });
    expect(write.status).toBe(403);
    // Administrators read WordPress's settings there, but never the plugin's: the token stays out of REST.
    const admin = await fetchPage('/wp-json/wp/v2/settings', basic(ADMIN.login, passwords.admin!));
    expect(admin.status).toBe(200);
    expect(admin.json).not.toHaveProperty('live_visitors_settings');
    expect(stored()).toEqual(before);
  });
});

describe('the token', () => {
  it('appears in no page, REST answer, script, settings page or PHP log', async () => {
    const cookie = await logIn(site, ADMIN);
    served.push(await get(site, SETTINGS_PAGE, { Cookie: cookie }));
    served.push(await get(site, '/wp-json/'));
    served.push(await relayAnswer());
    const assets = join(site.root, 'wp-content', 'plugins', 'live-visitors', 'assets');
    const scripts = readdirSync(assets, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.js'))
      .map((name) => readFileSync(join(assets, name), 'utf8'));
    const everything = [...served.map((answer) => `${[...answer.headers].join('\n')}\n${answer.text}`), ...scripts, site.readDebugLog()];
    expect(served.length).toBeGreaterThan(300);
    for (const text of everything) {
      expect(text).not.toContain(RELAYED.token);
      expect(text).not.toContain(encodeURIComponent(RELAYED.token));
    }
    // The plugin did log (a failure above): its lines are there, without the token.
    expect(site.readDebugLog()).toContain('[live-visitors] website "bb-shop": the analytics service answered 500');
  });
});
