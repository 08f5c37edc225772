import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { SimulatedTime } from './support/simulated-time.js';
import { brokenText, readWidgets, shownCount } from './support/widget-probe.js';

/**
 * Issue 3, last item: the demo `npm start` serves (Vite with the emulator mounted on the same
 * origin) loads in headless Chromium and shows a number; a screenshot is kept in `.artifacts/`.
 */

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const SCREENSHOT = root('.artifacts/demo.png');
const REALTIME_PATH = '/api/v1/realtime';

let server: ViteDevServer;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  // `npm start`'s server, from the same config. No file watcher: other work on this checkout must
  // not reload the page under the test.
  server = await createServer({
    configFile: root('vite.config.ts'),
    server: { port: 0, watch: null },
    logLevel: 'warn',
    clearScreen: false,
  });
  [browser] = await Promise.all([launchChromium(), server.listen()]);
  origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.close()]);
});

function trackPage(page: Page): { errors: string[]; realtimeRequests: () => number } {
  const errors: string[] = [];
  let realtimeRequests = 0;
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => {
    if (request.method() === 'GET' && new URL(request.url()).pathname === REALTIME_PATH) realtimeRequests += 1;
  });
  return { errors, realtimeRequests: () => realtimeRequests };
}

describe('the demo of `npm start` in headless Chromium', () => {
  it('the product page shows a live number, and the "Service down (500)" scenario keeps it as stale with a note', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const { errors } = trackPage(page);
    await page.goto(`${origin}/`);

    const widget = page.locator('#widget');
    await expect.poll(() => widget.getAttribute('state'), { timeout: 30_000 }).toBe('live');
    const [live] = await readWidgets(page);
    expect(live!.text).toMatch(/^\d+ (person is|people are) browsing this shop right now$/);
    const count = shownCount(live!.text);
    expect(count).toBe(live!.count);
    // The status panel beside the configurator says the same.
    await expect.poll(() => page.locator('#count').textContent()).toBe(String(count));

    await page.getByRole('button', { name: 'Service down (500)' }).click();
    await expect.poll(() => page.locator('#scenario-note').textContent()).toContain('The service answers 500');
    await expect.poll(() => widget.getAttribute('state')).toBe('stale');
    // The shopper still sees the last good number.
    const [stale] = await readWidgets(page);
    expect(stale).toEqual({ state: 'stale', count: live!.count, text: live!.text });
    expect(await page.getByRole('button', { name: 'Service down (500)' }).getAttribute('aria-pressed')).toBe('true');

    await mkdir(root('.artifacts'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // "All well" clears the fault at the service and the widget is live again.
    await page.getByRole('button', { name: 'All well' }).click();
    await expect.poll(() => widget.getAttribute('state')).toBe('live');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the many-widgets page: 12 widgets show the same count from exactly one request', async () => {
    const context = await browser.newContext();
    // Simulated time, paused: the page's 15 s interval cannot add a request while the test looks.
    const time = await SimulatedTime.install(context);
    const page = await context.newPage();
    const { errors, realtimeRequests } = trackPage(page);
    await page.goto(`${origin}/many.html`);
    await expect.poll(() => page.locator('live-visitors').count()).toBe(12);
    await time.settle();

    await expect.poll(async () => (await readWidgets(page)).filter((widget) => widget.state === 'live').length).toBe(12);
    const widgets = await readWidgets(page);
    const count = widgets[0]!.count;
    expect(count).toEqual(expect.any(Number));
    for (const widget of widgets) {
      expect(widget).toMatchObject({ state: 'live', count });
      expect(shownCount(widget.text)).toBe(count);
      expect(brokenText(widget.text)).toBeNull();
    }
    expect(realtimeRequests()).toBe(1);
    // The page's own counter (Resource Timing) agrees.
    await expect.poll(() => page.locator('#requests').textContent()).toBe('1');

    // One interval (15 s) later: one more request for all twelve.
    await time.advance(15_000, 5_000);
    expect(realtimeRequests()).toBe(2);
    expect(errors).toEqual([]);
    await context.close();
  });
});
