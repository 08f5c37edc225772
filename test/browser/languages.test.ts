import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditAccessibility, describeViolations } from './support/axe.js';
import { launchChromium } from './support/chromium.js';
import { type CountingEmulator, startCountingEmulator } from './support/counting-emulator.js';
import { type StaticSite, startStaticSite } from './support/static-site.js';
import { shownText } from './support/widget.js';

/**
 * Languages in a real browser: a language beyond English loads its file from beside the script,
 * once per page, and nothing but the fallback shows until it is in (no English flash, no broken
 * text); right-to-left pages lay the element out mirrored, the dot on the inline-start side and
 * the disclosure under the sentence's start. Screenshots of an RTL and a CJK page go to
 * `.artifacts/`.
 */

const WEBSITE = { id: 'demo-shop', token: 'demo-token' };
const ARTIFACTS = fileURLToPath(new URL('../../.artifacts/', import.meta.url));
const FALLBACK = '…';

let browser: Browser;
let site: StaticSite;
let service: CountingEmulator;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startCountingEmulator()]);
  service.setVisitors(WEBSITE.id, 23);
  await mkdir(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await Promise.all([browser?.close(), site?.close(), service?.close()]);
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

/**
 * A shop page in `lang`; `dir` on <html>, or `blockDir` on a <div> around the offers; each offer is
 * `prefix` then the element, which starts its line when there is no prefix.
 */
function page(lang: string, { dir = '', blockDir = '', elements = 1, prefix = '−30% ' } = {}): string {
  const element = `<live-visitors website-id="${WEBSITE.id}" token="${WEBSITE.token}" api-base="${service.url}"><span slot="fallback">${FALLBACK}</span></live-visitors>`;
  const paragraphs = Array.from({ length: elements }, (_, index) => `<p class="offer" id="offer-${index}">${prefix}${element}</p>`).join(
    '',
  );
  const offers = blockDir ? `<div dir="${blockDir}">${paragraphs}</div>` : paragraphs;
  return `<!doctype html><html lang="${lang}"${dir ? ` dir="${dir}"` : ''}><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
  <script type="module" src="/live-visitors.js"></script>
  <style>body { font: 18px/1.6 sans-serif; margin: 2em; width: 36em; } .offer { margin: 0 0 4em; }</style></head>
  <body><main><h1>Shop</h1>${offers}</main></body></html>`;
}

/** Opens a page; requests for language files are counted, and held for `delayMs` first (or answered 404). */
async function open(html: string, delayMs: number | 'missing' = 0): Promise<{ tab: Page; languageRequests: string[] }> {
  const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
  contexts.push(context);
  const languageRequests: string[] = [];
  await context.route('**/live-visitors-lang-*.js', async (route) => {
    languageRequests.push(new URL(route.request().url()).pathname);
    if (delayMs === 'missing') return route.fulfill({ status: 404, body: 'Not found' });
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    await route.continue();
  });
  const tab = await context.newPage();
  const path = `/page-${Math.random().toString(36).slice(2)}.html`;
  site.put(path, html);
  await tab.goto(`${site.url}${path}`);
  return { tab, languageRequests };
}

describe('a language beyond English', () => {
  it('loads its file once per page for every element, and shows only the fallback until it is in', async () => {
    const { tab, languageRequests } = await open(page('de', { elements: 3 }), 700);
    // Whatever each element shows meanwhile is recorded: never English, never a broken sentence.
    await tab.evaluate(() => {
      const seen = new Set<string>();
      Object.assign(window, { seen });
      const record = () => {
        for (const element of document.querySelectorAll('live-visitors')) {
          const text = element.shadowRoot?.querySelector('[part="text"]');
          seen.add(text?.isConnected ? (text.textContent ?? '') : 'fallback');
        }
        requestAnimationFrame(record);
      };
      record();
    });
    const widgets = tab.locator('live-visitors');
    await expect.poll(() => shownText(widgets.first())).toBe('23 Personen sehen sich gerade in diesem Shop um');
    for (let index = 0; index < 3; index += 1)
      expect(await shownText(widgets.nth(index))).toBe('23 Personen sehen sich gerade in diesem Shop um');
    expect(languageRequests).toEqual(['/live-visitors-lang-de.js']);
    const seen = await tab.evaluate(() => [...(window as unknown as { seen: Set<string> }).seen]);
    expect(seen.sort()).toEqual(['23 Personen sehen sich gerade in diesem Shop um', 'fallback']);
    expect(await tab.locator('live-visitors [part="text"]').first().getAttribute('lang')).toBe('de');
  });

  it('a cached count paints as soon as its texts are in on the next page load', async () => {
    const { tab } = await open(page('ja'));
    await expect.poll(() => shownText(tab.locator('live-visitors'))).toMatch(/23/);
    const requestsBefore = service.realtimeRequests;
    await tab.reload();
    await expect.poll(() => shownText(tab.locator('live-visitors'))).toMatch(/23/);
    expect(service.realtimeRequests).toBe(requestsBefore);
  });

  it('whose file is missing (a copy without its language files) shows English, marked lang="en", after one request', async () => {
    const { tab, languageRequests } = await open(page('de', { elements: 2 }), 'missing');
    const text = tab.locator('live-visitors').first().locator('[part="text"]');
    await expect.poll(() => text.textContent()).toBe('23 people are browsing this shop right now');
    expect(await text.getAttribute('lang')).toBe('en');
    // A failed language stays failed for the page: no second request, whatever updates follow.
    await tab
      .locator('live-visitors')
      .first()
      .evaluate((element) => (element as HTMLElement & { refresh(): Promise<void> }).refresh());
    await tab.waitForTimeout(300);
    expect(languageRequests).toEqual(['/live-visitors-lang-de.js']);
  });
});

/** Where the dot, the sentence and the open disclosure are, left to right. */
function geometry(tab: Page) {
  return tab.evaluate(() => {
    const element = document.querySelector('live-visitors')!;
    const root = element.shadowRoot!;
    const rect = (selector: string) => {
      const { left, right, top, bottom } = root.querySelector(selector)!.getBoundingClientRect();
      return { left, right, top, bottom };
    };
    return {
      host: element.getBoundingClientRect().toJSON(),
      dot: rect('[part="indicator"]'),
      text: rect('[part="text"]'),
      disclosure: rect('[part="disclosure"]'),
    };
  });
}

describe('right to left', () => {
  it.each([
    ['ar', 'rtl'],
    ['he', 'rtl'],
    ['en', 'rtl'],
  ])('lang="%s" dir="%s": the dot on the right of the sentence, the disclosure from its right edge; axe passes', async (lang, dir) => {
    const { tab } = await open(page(lang, { dir }));
    await expect.poll(() => shownText(tab.locator('live-visitors'))).toMatch(/23|٢٣/);
    await tab.hover('live-visitors [part="text"]');
    const { host, dot, text, disclosure } = await geometry(tab);
    expect(dot.left).toBeGreaterThanOrEqual(text.right - 1);
    expect(Math.abs(disclosure.right - host.right)).toBeLessThan(1);
    expect(disclosure.top).toBeGreaterThanOrEqual(text.bottom - 1);
    const violations = await auditAccessibility(tab);
    expect(violations, describeViolations(violations)).toEqual([]);
    if (lang === 'ar') await tab.screenshot({ path: `${ARTIFACTS}languages-rtl-ar.png` });
  });

  // Issue 25, defect 11 (failed on 296e09b): an English sentence in a right-to-left page or block, after English
  // text on its line, showed the dot on its left (the bidi algorithm ran it into that text).
  it.each<[string, { dir?: string; blockDir?: string; prefix: string }]>([
    ['<html dir="rtl">, after English text', { dir: 'rtl', prefix: 'Only 4 left! ' }],
    ['<div dir="rtl">, after English text', { blockDir: 'rtl', prefix: 'Only 4 left! ' }],
    ['<html dir="rtl">, starting its line', { dir: 'rtl', prefix: '' }],
    ['<div dir="rtl">, starting its line', { blockDir: 'rtl', prefix: '' }],
  ])('English text in %s: the dot on the right of the sentence, the disclosure from its right edge', async (_, where) => {
    const { tab } = await open(page('en', where));
    await expect.poll(() => shownText(tab.locator('live-visitors'))).toMatch(/23/);
    await tab.hover('live-visitors [part="text"]');
    const { host, dot, text, disclosure } = await geometry(tab);
    expect(dot.left).toBeGreaterThanOrEqual(text.right - 1);
    expect(Math.abs(disclosure.right - host.right)).toBeLessThan(1);
    if (where.blockDir && where.prefix) await tab.screenshot({ path: `${ARTIFACTS}languages-rtl-block-en.png` });
  });

  it('left to right for comparison: the dot on the left, the disclosure from the left edge; a CJK page', async () => {
    const { tab } = await open(page('zh-TW'));
    await expect.poll(() => shownText(tab.locator('live-visitors'))).toMatch(/23/);
    await tab.hover('live-visitors [part="text"]');
    const { host, dot, text, disclosure } = await geometry(tab);
    expect(dot.right).toBeLessThanOrEqual(text.left + 1);
    expect(Math.abs(disclosure.left - host.left)).toBeLessThan(1);
    expect(await tab.locator('live-visitors [part="text"]').getAttribute('lang')).toBe('zh-TW');
    await tab.screenshot({ path: `${ARTIFACTS}languages-cjk-zh-TW.png` });
  });
});
