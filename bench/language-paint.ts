// Real Chromium: how soon the sentence shows, against the page's first paint. Warm loads (a stored
// count) in English (in the bundle) and in German (a file beside it, fetched by the page); and a
// first visit, where the README's snippet waits for the page to load on purpose. Both ways of
// loading: the README's snippet, and a plain script tag.
import type { BrowserContext } from 'playwright-core';
import { launchChromium } from '../test/browser/support/chromium.js';
import { startCountingEmulator } from '../test/browser/support/counting-emulator.js';
import { type FirstText, firstText, recordFirstText } from '../test/browser/support/first-text.js';
import { startStaticSite } from '../test/browser/support/static-site.js';
import { readmeSnippet } from '../test/support/readme-snippet.js';
import { printTable } from './table.js';

const RUNS = 15;

const LOADERS = {
  'README snippet': readmeSnippet('/live-visitors.js').script,
  'script tag': '<script type="module" src="/live-visitors.js"></script>',
};
type Loader = keyof typeof LOADERS;

const CASES: Array<{ visit: 'warm' | 'first visit'; lang: string; where: string; loader: Loader }> = [
  { visit: 'warm', lang: 'en', where: 'in the bundle', loader: 'README snippet' },
  { visit: 'warm', lang: 'en', where: 'in the bundle', loader: 'script tag' },
  { visit: 'warm', lang: 'de', where: 'live-visitors-lang-de.js', loader: 'README snippet' },
  { visit: 'warm', lang: 'de', where: 'live-visitors-lang-de.js', loader: 'script tag' },
  { visit: 'first visit', lang: 'en', where: 'in the bundle', loader: 'README snippet' },
  { visit: 'first visit', lang: 'en', where: 'in the bundle', loader: 'script tag' },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchLanguagePaint(): Promise<void> {
  const [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startCountingEmulator()]);
  const newContext = async (): Promise<BrowserContext> => {
    const context = await browser.newContext();
    await recordFirstText(context);
    return context;
  };
  try {
    service.setVisitors('demo-shop', 23);
    const rows = [];
    for (const { visit, lang, where, loader } of CASES) {
      const path = `/${lang}-${loader.replace(' ', '-')}.html`;
      site.put(
        path,
        `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
        ${LOADERS[loader]}</head>
        <body><p>Offer:</p><live-visitors website-id="demo-shop" token="demo-token" api-base="${service.url}"></live-visitors></body></html>`,
      );
      site.put(`/to${path}`, `<!doctype html><html lang="${lang}"><title>Shop</title><body><a href="${path}">Offer</a></body></html>`);
      const samples: FirstText[] = [];
      if (visit === 'warm') {
        const context = await newContext();
        const page = await context.newPage();
        // The first load stores the count; every later one within the interval is warm. The
        // shopper comes from another page of the shop, as a returning shopper mostly does.
        await page.goto(`${site.url}${path}`);
        await firstText(page);
        for (let run = 0; run < RUNS; run += 1) {
          await page.goto(`${site.url}/to${path}`);
          await Promise.all([page.waitForURL(`**${path}`), page.click('a')]);
          samples.push(await firstText(page));
        }
        await context.close();
      } else {
        for (let run = 0; run < RUNS; run += 1) {
          const context = await newContext();
          const page = await context.newPage();
          await page.goto(`${site.url}${path}`);
          samples.push(await firstText(page));
          await context.close();
        }
      }
      const after = (key: 'firstPaint' | 'load') => `${median(samples.map((sample) => sample.at - sample[key])).toFixed(1)} ms`;
      rows.push({
        visit,
        language: `${lang} (${where})`,
        loaded: loader,
        'first text': `${median(samples.map((sample) => sample.at)).toFixed(1)} ms`,
        'after first paint': after('firstPaint'),
        'after load event': after('load'),
      });
    }
    printTable(
      `Time to first text, real Chromium, loopback, service answering at once, median of ${RUNS} loads (a warm load has a stored count)`,
      rows,
    );
  } finally {
    await Promise.all([browser.close(), site.close(), service.close()]);
  }
}
