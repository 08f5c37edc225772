// Real Chromium: the element placed by the window.liveVisitors queue (issue 23 §1) against the
// element written in the template, both loaded by the README's snippet, and placed by Tag Manager's
// way (the classic loader in a script tag): time to first text and layout shift, warm (a stored
// count, coming from another page of the shop) and on a first visit. The product form is in the
// page's HTML, as on most themes; test/browser/placement.test.ts covers a form rendered 1 s late.
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../test/browser/support/chromium.js';
import { startCountingEmulator } from '../test/browser/support/counting-emulator.js';
import { type FirstText, firstText, recordFirstText } from '../test/browser/support/first-text.js';
import { layoutShifts, recordLayoutShifts } from '../test/browser/support/layout-shifts.js';
import { startStaticSite } from '../test/browser/support/static-site.js';
import { readmeSnippet } from '../test/support/readme-snippet.js';
import { printTable } from './table.js';

const RUNS = 11;
/** After the sentence shows, how long layout shifts are still collected. */
const SETTLE_MS = 300;

type Way = 'in the template, README snippet' | 'placed, README snippet' | 'placed, classic loader (Tag Manager)';
const WAYS: Way[] = ['in the template, README snippet', 'placed, README snippet', 'placed, classic loader (Tag Manager)'];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function productPage(way: Way, apiBase: string): string {
  const { script, elementStyle } = readmeSnippet('/live-visitors.js');
  const attributes = `website-id="demo-shop" token="demo-token" api-base="${apiBase}"`;
  const queue = `<script>window.liveVisitors = window.liveVisitors || []; liveVisitors.push({ selector: 'form[action*="/cart/add"]', position: 'before', attributes: { 'website-id': 'demo-shop', token: 'demo-token', 'api-base': '${apiBase}' } });</script>`;
  const head = {
    'in the template, README snippet': script,
    'placed, README snippet': `${queue}${script}`,
    'placed, classic loader (Tag Manager)': `${queue}<script src="/live-visitors-loader.js" async></script>`,
  }[way];
  const element = way === 'in the template, README snippet' ? `<live-visitors ${attributes} style="${elementStyle}"></live-visitors>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
    <style>body { font: 17px/1.5 sans-serif; margin: 0 20px; }</style>${head}</head>
    <body><h1>Nordic Roast</h1><p>−30% today only, 4 left in stock.</p>${element}
    <form action="/cart/add"><button>Add to cart</button></form><p>Free returns within 30 days.</p></body></html>`;
}

async function sample(page: Page): Promise<FirstText & { cls: number }> {
  const text = await firstText(page);
  await page.waitForTimeout(SETTLE_MS);
  const cls = (await layoutShifts(page)).reduce((sum, value) => sum + value, 0);
  return { ...text, cls };
}

async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 800, height: 700 } });
  await recordFirstText(context);
  await context.addInitScript(recordLayoutShifts);
  return context.newPage();
}

export async function benchPlacementPaint(): Promise<void> {
  const [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startCountingEmulator()]);
  try {
    service.setVisitors('demo-shop', 23);
    const rows = [];
    for (const visit of ['warm', 'first visit'] as const) {
      for (const [index, way] of WAYS.entries()) {
        const path = `/product-${index}.html`;
        site.put(path, productPage(way, service.url));
        site.put(`/to${path}`, `<!doctype html><html lang="en"><title>Shop</title><body><a href="${path}">Nordic Roast</a></body></html>`);
        const samples = [];
        if (visit === 'warm') {
          const page = await newPage(browser);
          await page.goto(`${site.url}${path}`);
          await firstText(page);
          for (let run = 0; run < RUNS; run += 1) {
            await page.goto(`${site.url}/to${path}`);
            await Promise.all([page.waitForURL(`**${path}`), page.click('a')]);
            samples.push(await sample(page));
          }
          await page.context().close();
        } else {
          for (let run = 0; run < RUNS; run += 1) {
            const page = await newPage(browser);
            await page.goto(`${site.url}${path}`);
            samples.push(await sample(page));
            await page.context().close();
          }
        }
        rows.push({
          visit,
          element: way,
          'first text': `${median(samples.map((s) => s.at)).toFixed(1)} ms`,
          'after first paint': `${median(samples.map((s) => s.at - s.firstPaint)).toFixed(1)} ms`,
          'after load event': `${median(samples.map((s) => s.at - s.load)).toFixed(1)} ms`,
          'CLS (largest)': Math.max(...samples.map((s) => s.cls)).toFixed(4),
        });
      }
    }
    printTable(
      `Placement: time to first text and layout shift, real Chromium, loopback, service answering at once, median of ${RUNS} loads`,
      rows,
    );
  } finally {
    await Promise.all([browser.close(), site.close(), service.close()]);
  }
}
