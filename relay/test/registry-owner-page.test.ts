// @vitest-environment node
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOnNode } from '../../server-kit/serve.js';
import { launchChromium } from '../../test/browser/support/chromium.js';
import { pageTraces } from './support/page-traces.js';
import { policyViolations } from './support/policy-violations.js';
import { type RelayHarness, startRelayHarness } from './support/relay-harness.js';

/**
 * The owner page in a real Chromium, against a self-serving relay and the emulator: what an owner
 * types, what the page shows, and where the token is not afterwards.
 */
const OWNED = { id: 'not-relayed', token: 'tokC-SECRET-0000' } as const;
const KEYS = [`page:${btoa('p'.repeat(32))}`];

let browser: Browser;
let harness: RelayHarness;
beforeAll(async () => {
  [browser, harness] = await Promise.all([
    launchChromium(),
    startRelayHarness({ config: { selfServe: true, encryptionKeys: KEYS, registrationsMayBeLost: true } }),
  ]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), harness?.close()]);
});

async function ownerPage(): Promise<{ page: Page; violations: string[] }> {
  const page = await browser.newPage();
  const violations = policyViolations(page);
  const response = await page.goto(`${harness.relayUrl}/`);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'/);
  return { page, violations };
}

async function register(page: Page, websiteId: string, token: string, origins = ''): Promise<string> {
  await page.fill('#website-id', websiteId);
  await page.fill('#token', token);
  await page.fill('#origins', origins);
  await page.click('button[type=submit]');
  await page.waitForFunction(() => !/Checking/.test(document.getElementById('status')!.textContent ?? ''));
  return (await page.textContent('#status')) ?? '';
}

describe('the owner page', () => {
  it('registers, shows the live count and exactly what to paste, and keeps the token nowhere', async () => {
    const { page, violations } = await ownerPage();
    expect(await register(page, OWNED.id, OWNED.token, 'https://owner.example')).toBe('Registered.');
    await page.waitForFunction(() => /on your website|not available/.test(document.getElementById('count')!.textContent ?? ''));
    expect(await page.textContent('#count')).toMatch(/^\d+ visitors? on your website$/);

    // The README's snippet with the relay's own copy of the element (owner-page-snippet.test.ts pastes it).
    expect(await page.textContent('#snippet-head')).toMatch(
      new RegExp(`script\\.src = '${harness.relayUrl}/element/[^/']+/live-visitors\\.js'`),
    );
    expect(await page.textContent('#snippet-element')).toBe(
      `<live-visitors website-id="${OWNED.id}" api-base="${harness.relayUrl}"\n  style="display: block; min-height: 2lh"></live-visitors>`,
    );
    expect(await page.textContent('#shown-website-id')).toBe(OWNED.id);
    expect(await page.textContent('#tag-website-id')).toBe(OWNED.id);
    expect(await page.textContent('#tag-api-base')).toBe(harness.relayUrl);

    // Nowhere: the field, the document, the URL, any storage, any URL the page fetched.
    const traces = await pageTraces(page, 'token');
    expect(traces.field).toBe('');
    expect(traces.fetched).toContain('/api/v1/websites/not-relayed');
    for (const [where, text] of Object.entries(traces)) expect(text, where).not.toContain(OWNED.token);
    expect(page.url()).toBe(`${harness.relayUrl}/`);
    expect(violations).toEqual([]);
    await page.close();
  });

  it('works under a path prefix: its files, its API calls and the api-base it gives all keep the prefix', async () => {
    // A reverse proxy that mounts the relay under /shop/relay, as the demo and a shop's own origin do.
    const PREFIX = '/shop/relay';
    const outside: string[] = [];
    const proxy = await serveOnNode(
      async (request) => {
        const url = new URL(request.url);
        if (!url.pathname.startsWith(`${PREFIX}/`)) {
          outside.push(url.pathname);
          return new Response('Not under the prefix', { status: 404 });
        }
        const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
        const forwarded = `${harness.relayUrl}${url.pathname.slice(PREFIX.length)}${url.search}`;
        return fetch(forwarded, { method: request.method, headers: request.headers, body });
      },
      { port: 0, graceMs: 0 },
    );
    const relayAddress = `${proxy.url}${PREFIX}`;
    const page = await browser.newPage();
    try {
      expect((await page.goto(`${relayAddress}/`))?.status()).toBe(200);
      // The stylesheet applied and the script ran: it answers the empty form in words.
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('main')!).maxWidth)).toBe('640px');
      expect(await register(page, '', '')).toBe('Enter "Website ID". It is the name your realtime visitors API knows your website by.');

      expect(await register(page, OWNED.id, OWNED.token)).toMatch(/^(Registered|Registration updated)\.$/);
      await page.waitForFunction(() => /on your website|not available/.test(document.getElementById('count')!.textContent ?? ''));
      expect(await page.textContent('#count')).toMatch(/^\d+ visitors? on your website$/);
      expect(await page.textContent('#tag-api-base')).toBe(relayAddress);
      expect(await page.textContent('#snippet-element')).toContain(`api-base="${relayAddress}"`);
      const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname));
      expect(fetched).toEqual(
        expect.arrayContaining([
          `${PREFIX}/owner.css`,
          `${PREFIX}/owner.js`,
          `${PREFIX}/api/v1/websites/${OWNED.id}`,
          `${PREFIX}/api/v1/realtime`,
        ]),
      );
      expect(outside).toEqual([]);
    } finally {
      await Promise.all([page.close(), proxy.close()]);
    }
  });

  it('says in words what went wrong, and stores nothing', async () => {
    const { page } = await ownerPage();
    expect(await register(page, OWNED.id, 'not-the-token-9999')).toMatch(/refused this token/);
    expect(await register(page, 'nobody-knows-it', OWNED.token)).toMatch(/does not know a website "nobody-knows-it"/);
    expect(await register(page, OWNED.id, OWNED.token, 'https://owner.example/shop')).toBe(
      '"Your shop\'s addresses": https://owner.example/shop is not an address like https://shop.example (https://, the host, no path and no slash at the end). Correct it, or empty the field to let any site show the count.',
    );
    // Nothing typed is lost, and the field at fault is marked.
    expect(await page.inputValue('#website-id')).toBe(OWNED.id);
    expect(await page.inputValue('#origins')).toBe('https://owner.example/shop');
    expect(await page.getAttribute('#origins', 'aria-invalid')).toBe('true');
    expect(await page.isHidden('#result')).toBe(true);
    expect((await harness.get('?websiteId=nobody-knows-it')).status).toBe(404);
    await page.close();
  });
});
