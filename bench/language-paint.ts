// Real Chromium: how soon a warm page load (a stored count) shows its sentence, in English (in
// the bundle) and in German (a file beside it, fetched by the page), against the page's first paint.
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/browser/support/chromium.js';
import { startCountingEmulator } from '../test/browser/support/counting-emulator.js';
import { startStaticSite } from '../test/browser/support/static-site.js';
import { printTable } from './table.js';

const RUNS = 15;
const LANGUAGES = [
  ['en', 'in the bundle'],
  ['de', 'on demand, locales/de.js'],
] as const;

/** Records, from the page's own clock, when the first contentful paint and the first sentence text happened. */
const RECORD_FIRST_TEXT = `(() => {
  const seen = () => {
    const text = document.querySelector('live-visitors')?.shadowRoot?.querySelector('[part="text"]');
    return text?.isConnected && text.textContent;
  };
  const look = () => (seen() ? (window.firstText = performance.now()) : requestAnimationFrame(look));
  requestAnimationFrame(look);
})()`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function firstText(page: Page): Promise<{ text: number; fcp: number }> {
  await page.waitForFunction(() => 'firstText' in window, undefined, { timeout: 10_000 });
  return page.evaluate(() => ({
    text: (window as unknown as { firstText: number }).firstText,
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
  }));
}

export async function benchLanguagePaint(): Promise<void> {
  const [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startCountingEmulator()]);
  try {
    service.setVisitors('demo-shop', 23);
    const rows = [];
    for (const [lang, where] of LANGUAGES) {
      site.put(
        `/${lang}.html`,
        `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
        <script type="module" async src="/live-visitors.js"></script></head>
        <body><p>Offer: <live-visitors website-id="demo-shop" token="demo-token" api-base="${service.url}"></live-visitors></p></body></html>`,
      );
      const context = await browser.newContext();
      await context.addInitScript(RECORD_FIRST_TEXT);
      const page = await context.newPage();
      // The first load stores the count; every later one within the interval is warm.
      await page.goto(`${site.url}/${lang}.html`);
      await firstText(page);
      const samples: Array<{ text: number; fcp: number }> = [];
      for (let run = 0; run < RUNS; run += 1) {
        await page.reload();
        samples.push(await firstText(page));
      }
      await context.close();
      const text = median(samples.map((sample) => sample.text));
      const afterFcp = median(samples.map((sample) => sample.text - sample.fcp));
      rows.push({
        language: `${lang} (${where})`,
        'first text': `${text.toFixed(1)} ms`,
        'after first paint': `${afterFcp.toFixed(1)} ms`,
      });
    }
    printTable(`Time to first text on a warm load (stored count), real Chromium, loopback, median of ${RUNS} reloads`, rows);
  } finally {
    await Promise.all([browser.close(), site.close(), service.close()]);
  }
}
