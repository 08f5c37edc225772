import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../test/browser/support/chromium.js';
import { type CountingEmulator, startCountingEmulator } from '../../../test/browser/support/counting-emulator.js';
import { type StaticSite, startStaticSite } from '../../../test/browser/support/static-site.js';
import type { PageRun } from './support/browser-host.js';
import { PUBLISHED_LOADER_URL } from './support/published-script.js';
import { readTemplate, tagFields } from './support/template-file.js';

/**
 * The tag in a real page: the template's sandboxed code runs in Chromium through the same runner
 * and permission checks as in Node (Tag Manager's own runtime cannot run here), against the built
 * files served at the template's default jsDelivr URL (routed to dist/, so the permission is the
 * real one), with the emulator as the service. The element must appear at the selector and show
 * the count. What this does not prove: that Tag Manager's own sandbox agrees with the documented
 * contract this runner implements.
 */
const template = readTemplate();
const CDN_DIST = PUBLISHED_LOADER_URL.replace(/live-visitors-loader\.js$/, '');
const SENTENCE = '17 people are browsing this shop right now';

let browser: Browser;
let site: StaticSite;
let service: CountingEmulator;

beforeAll(async () => {
  [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startCountingEmulator()]);
  service.setVisitors('demo-shop', 17);
  // The runner's three modules, as the page loads them: TypeScript without its types.
  for (const name of ['sandbox', 'permissions', 'browser-host']) {
    const source = await readFile(new URL(`./support/${name}.ts`, import.meta.url), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    });
    site.put(`/gtm/${name}.js`, outputText, 'text/javascript');
  }
});

afterAll(async () => {
  await Promise.all([browser?.close(), site?.close(), service?.close()]);
});

/** A product page with Tag Manager's part played by the runner: the tag fires as the page loads. */
function productPage(fields: Record<string, unknown>, formDelayMs = 0): string {
  const tag = JSON.stringify({ code: template.code, fields, permissions: template.permissionsJson }).replaceAll('<', '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
    <script>window.dataLayer = window.dataLayer || [];</script>
    <script type="application/json" id="gtm-tag">${tag}</script>
    <script type="module" src="/gtm/browser-host.js"></script></head>
    <body><h1>Winter sale</h1><div id="product"></div><p>Free returns within 30 days.</p>
    <script>
      setTimeout(() => {
        document.querySelector('#product').innerHTML = '<form class="product-form" action="/cart/add"><button>Add to cart</button></form>';
      }, ${formDelayMs});
    </script></body></html>`;
}

async function open(html: string): Promise<{ page: Page; run: PageRun; cdnRequests: string[]; errors: string[] }> {
  const path = `/product-${Math.random().toString(36).slice(2)}.html`;
  site.put(path, html);
  const page = await browser.newPage();
  const cdnRequests: string[] = [];
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // The CDN, played by dist/: jsDelivr serves with CORS open, which module scripts from another origin need.
  await page.route(`${CDN_DIST}**`, async (route) => {
    const name = new URL(route.request().url()).pathname.split('/').at(-1) ?? '';
    cdnRequests.push(name);
    const body = await readFile(new URL(`../../../dist/${name}`, import.meta.url), 'utf8').catch(() => undefined);
    if (body === undefined) return route.fulfill({ status: 404, body: 'Not found' });
    return route.fulfill({ status: 200, body, headers: { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' } });
  });
  await page.goto(`${site.url}${path}`);
  const run = await page.evaluate(() => (globalThis as unknown as { gtmTagRun: Promise<PageRun> }).gtmTagRun);
  return { page, run, cdnRequests, errors };
}

describe('the Tag Manager template in Chromium', () => {
  it('places the element after the selector and shows the count from the service', async () => {
    const fields = tagFields(template, {
      websiteId: 'demo-shop',
      selector: 'form[action*="/cart/add"]',
      apiBase: service.url,
      token: 'demo-token',
    });
    const { page, run, cdnRequests, errors } = await open(productPage(fields));
    expect([run.outcome, run.thrown]).toEqual(['success', null]);
    const effects = ['createQueue', 'injectScript', 'gtmOnSuccess', 'gtmOnFailure'];
    expect(run.apis.filter((api) => effects.includes(api))).toEqual(['createQueue', 'injectScript', 'gtmOnSuccess']);
    const sentence = page.locator('live-visitors [part="text"]');
    await expect.poll(() => sentence.textContent()).toBe(SENTENCE);
    expect(await page.locator('live-visitors').count()).toBe(1);
    expect(await page.locator('form.product-form').evaluate((form) => form.nextElementSibling?.localName)).toBe('live-visitors');
    expect(cdnRequests.slice(0, 2)).toEqual(['live-visitors-loader.js', 'live-visitors.js']);
    // What the README's GA4 trigger and variables read: the impression, once seen for a second.
    const impressions = () =>
      page.evaluate(() =>
        (globalThis as unknown as { dataLayer: Array<{ event?: string }> }).dataLayer.filter(
          (entry) => entry.event === 'live_visitors_impression',
        ),
      );
    await expect.poll(impressions).toEqual([
      // The fields the GA4 variables read; the element may add more (the window of the count).
      expect.objectContaining({
        event: 'live_visitors_impression',
        live_visitors_variant: 'shown',
        live_visitors_count: 17,
        live_visitors_website: 'demo-shop',
      }),
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('places it first inside an anchor that the theme renders a second after load', async () => {
    const fields = tagFields(template, {
      websiteId: 'demo-shop',
      selector: '.product-form',
      position: 'first',
      apiBase: service.url,
      token: 'demo-token',
    });
    const { page, run, errors } = await open(productPage(fields, 1000));
    expect(run.outcome).toBe('success');
    const sentence = page.locator('form.product-form > live-visitors:first-child [part="text"]');
    await expect.poll(() => sentence.textContent()).toBe(SENTENCE);
    expect(await page.locator('live-visitors').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it.each([
    ['an empty website ID', { websiteId: '', selector: '.product-form' }],
    [
      'a script URL the template may not load',
      { websiteId: 'demo-shop', selector: '.product-form', scriptUrl: 'https://shop.example/assets/live-visitors-loader.js' },
    ],
  ])('with %s the tag fails, loads nothing and places nothing', async (_case, values) => {
    const { page, run, cdnRequests, errors } = await open(productPage(tagFields(template, { apiBase: service.url, ...values })));
    expect(run.outcome).toBe('failure');
    expect(run.apis).not.toContain('injectScript');
    expect(cdnRequests).toEqual([]);
    expect(await page.evaluate(() => (globalThis as { liveVisitors?: unknown }).liveVisitors)).toBeUndefined();
    expect(await page.locator('live-visitors').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
