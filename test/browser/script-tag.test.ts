import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type EmulatorServer, startEmulatorServer } from '../../emulator/src/index.js';
import { launchChromium } from './support/chromium.js';
import { type StaticSite, startStaticSite } from './support/static-site.js';

let browser: Browser;
let site: StaticSite;
let service: EmulatorServer;

beforeAll(async () => {
  [browser, site, service] = await Promise.all([
    launchChromium(),
    startStaticSite(),
    startEmulatorServer({ port: 0, controls: true, simulate: 12 }),
  ]);
  service.emulator.traffic.setTarget(12, { immediate: true });
});

afterAll(async () => {
  await Promise.all([browser?.close(), site?.close(), service?.close()]);
});

it('the built bundle in one script tag shows the live count from the service', async () => {
  site.put(
    '/shop.html',
    `<!doctype html><html lang="en"><head><script type="module" src="/live-visitors.js"></script></head>
     <body><p>Winter sale <live-visitors website-id="demo-shop" token="demo-token" api-base="${service.url}"></live-visitors></p></body></html>`,
  );
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${site.url}/shop.html`);
  const widget = page.locator('live-visitors');
  await expect.poll(() => widget.getAttribute('state')).toBe('live');
  const text = await widget.locator('[part="text"]').textContent();
  expect(text).toMatch(/^\d+ (person is|people are) browsing this shop right now$/);
  expect(errors).toEqual([]);
  await page.close();
});
