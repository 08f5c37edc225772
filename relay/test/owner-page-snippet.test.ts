// @vitest-environment node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorServer } from '../../emulator/src/index.js';
import { type NodeServer, serveOnNode } from '../../server-kit/serve.js';
import { launchChromium } from '../../test/browser/support/chromium.js';
import { writeBundledElement } from '../src/element-files/write-bundled-element.js';
import { SNIPPET, SNIPPET_PLACEHOLDERS } from '../src/registry/owner-snippet.js';
import { createRelay } from '../src/relay.js';
import { bundleWorker } from './runtimes/workerd-support.js';

/**
 * What a shop owner does with a relay, end to end in a real Chromium: register on the relay's page,
 * copy the snippet it gives (the README's, filled in), paste it into a page of the shop served from
 * another origin, and see the count, with every file of the element served by the relay itself
 * (no file served by hand, no CDN): on Node, and in workerd (Miniflare) from the relay's sources.
 */
const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const SHOP = { id: 'paste-shop', token: 'tokPaste-SECRET-2718' } as const;
const KEY = `paste:${btoa('p'.repeat(32))}`;
const VISITORS = 7;

/** The README's quick-start block, without its example offer: the two parts a shop pastes. */
function readmeSnippet(): string {
  const block = /## Quick start[\s\S]*?```html\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
  return block.replace(/\n<p class="offer">.*<\/p>\n/, '\n').trimEnd();
}

let browser: Browser;
let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
let folder: string;
beforeAll(async () => {
  [browser, emulator, folder] = await Promise.all([
    launchChromium(),
    startEmulatorServer({ port: 0, config: { websites: [{ ...SHOP, plan: 'enterprise' }] } }),
    // The relay's build step: dist/ (built when missing) into the module the relay bundles.
    writeBundledElement(),
  ]);
  for (let visitor = 0; visitor < VISITORS; visitor += 1) emulator.emulator.recordPageview(SHOP.id, `visitor-${visitor}`);
}, 120_000);
afterAll(async () => {
  await Promise.all([browser?.close(), emulator?.close()]);
});

describe("the owner page's snippet", () => {
  it("is the README's, line for line", () => {
    expect(`${SNIPPET.head}\n\n${SNIPPET.element}`).toBe(readmeSnippet());
    for (const placeholder of Object.values(SNIPPET_PLACEHOLDERS)) expect(readmeSnippet()).toContain(placeholder);
  });
});

/** Registers the shop on the relay's page and returns what the page says to paste. */
async function registerAndCopy(page: Page, relayUrl: string): Promise<{ head: string; element: string }> {
  expect((await page.goto(`${relayUrl}/`))?.status()).toBe(200);
  await page.fill('#website-id', SHOP.id);
  await page.fill('#token', SHOP.token);
  await page.click('button[type=submit]');
  await page.waitForFunction(() => !/^Checking/.test(document.getElementById('status')!.textContent ?? ''));
  expect(await page.textContent('#status')).toBe('Registered.');
  await page.waitForFunction(() => /visitors? on your website/.test(document.getElementById('count')!.textContent ?? ''));
  expect(await page.textContent('#count')).toBe(`${VISITORS} visitors on your website`);
  return { head: (await page.textContent('#snippet-head'))!, element: (await page.textContent('#snippet-element'))! };
}

/** Serves the pasted snippet as a shop's product page, on an origin of its own. */
function shopPage(pasted: { head: string; element: string }): Promise<NodeServer> {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A product</title>\n${pasted.head}\n</head>
<body><h1>A product</h1><p class="offer">−30% today only.</p>\n${pasted.element}\n</body></html>`;
  return serveOnNode(() => new Response(html, { headers: { 'Content-Type': 'text/html; charset=utf-8' } }), { port: 0, graceMs: 0 });
}

/** The whole journey against a relay at `relayUrl`: register, copy, paste elsewhere, see the count. */
async function pasteAndSee(relayUrl: string): Promise<void> {
  const ownerPage = await browser.newPage();
  const pasted = await registerAndCopy(ownerPage, relayUrl);
  await ownerPage.close();
  const scriptUrl = /script\.src = '([^']+)'/.exec(pasted.head)?.[1] ?? '';
  expect(scriptUrl).toMatch(new RegExp(`^${relayUrl}/element/\\d+\\.\\d+\\.\\d+-[0-9a-f]{10}/live-visitors\\.js$`));
  // The README's snippet with exactly the relay's values in it, nothing else changed.
  const expected = readmeSnippet()
    .replace(SNIPPET_PLACEHOLDERS.scriptUrl, scriptUrl)
    .replace(SNIPPET_PLACEHOLDERS.websiteId, SHOP.id)
    .replace(SNIPPET_PLACEHOLDERS.apiBase, relayUrl);
  expect(`${pasted.head}\n\n${pasted.element}`).toBe(expected);

  const shop = await shopPage(pasted);
  const page = await browser.newPage();
  try {
    expect(new URL(shop.url).origin).not.toBe(new URL(relayUrl).origin);
    await page.goto(shop.url);
    await page.waitForFunction(
      (count) => {
        const element = document.querySelector('live-visitors') as (HTMLElement & { count: number | null }) | null;
        return element?.getAttribute('state') === 'live' && element.count === count;
      },
      VISITORS,
      { timeout: 15_000 },
    );
    expect(await page.evaluate(() => document.querySelector('live-visitors')!.shadowRoot!.textContent)).toContain(String(VISITORS));
    // Every file of the element came from the relay's origin; the shop's server sent only its page.
    const scripts = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => entry.name)
        .filter((name) => name.endsWith('.js')),
    );
    expect(scripts.length).toBeGreaterThan(0);
    for (const url of scripts) expect(url.startsWith(`${relayUrl}/element/`), url).toBe(true);
  } finally {
    await Promise.all([page.close(), shop.close()]);
  }
  // Served as a CDN would serve it: a year, immutable, to any origin, as JavaScript.
  const file = await fetch(scriptUrl, { headers: { Origin: 'https://any-shop.example' } });
  expect(file.status).toBe(200);
  expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect(file.headers.get('access-control-allow-origin')).toBe('*');
  expect(file.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect(await file.text()).toBe(
    readFileSync(fileURLToPath(new URL('../../dist/live-visitors.js', import.meta.url)), 'utf8').replace(
      /\n?\/\/# sourceMappingURL=\S+\s*$/,
      '\n',
    ),
  );
  // Another build's folder is not this one: a miss, never cached.
  const other = await fetch(scriptUrl.replace(folder, '0.0.0-0000000000'));
  expect([other.status, other.headers.get('cache-control')]).toEqual([404, 'no-store']);
}

describe('a snippet pasted from the owner page into a page of another origin', () => {
  it('shows the count, the element loaded from the relay on Node', async () => {
    const relay = createRelay({
      config: { upstream: emulator.url, selfServe: true, encryptionKeys: [KEY], registrationsMayBeLost: true },
      log: () => {},
    });
    const server = await serveOnNode(relay, { port: 0, graceMs: 0 });
    try {
      await pasteAndSee(server.url);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('shows the count, the element loaded from the relay in workerd', async () => {
    const miniflare = new Miniflare({
      modules: true,
      script: await bundleWorker(join(import.meta.dirname, 'sources-worker-entry.ts')),
      compatibilityDate: '2026-04-24',
      host: '127.0.0.1',
      port: 0,
      bindings: {
        LIVE_VISITORS_UPSTREAM: emulator.url,
        LIVE_VISITORS_SELF_SERVE: 'true',
        LIVE_VISITORS_ENCRYPTION_KEYS: KEY,
        LIVE_VISITORS_REGISTRATIONS_MAY_BE_LOST: 'true',
      },
    });
    try {
      const origin = (await miniflare.ready).origin;
      await pasteAndSee(origin.replace(/\/$/, ''));
    } finally {
      await miniflare.dispose();
    }
  }, 90_000);
});
