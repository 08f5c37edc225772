// @vitest-environment node
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../test/browser/support/chromium.js';
import { sourceWebsiteId } from '../src/sources/source-website-id.js';
import { pageTraces } from './support/page-traces.js';
import { policyViolations } from './support/policy-violations.js';
import { type RelayHarness, startRelayHarness } from './support/relay-harness.js';

/**
 * The owner page's "Where your count comes from" in a real Chromium (issue 32 §5), against a
 * self-serving relay and the emulator's stand-in of Plausible (emulator/src/sources, written from
 * Plausible's documented realtime endpoint); Plausible itself is not reachable here and was not asked.
 */
const SITE = 'not-relayed';
/** A source's website ID on the relay is derived from it: `<kind>:<site>`. */
const KEYS = [`page:${btoa('s'.repeat(32))}`];

let browser: Browser;
let harness: RelayHarness;
let plausible: { base: string; siteId: string; apiKey: string };
/** The ID the relay makes of the stand-in's Plausible site (its base is not plausible.io, so it is named too). */
let relayId: string;
beforeAll(async () => {
  [browser, harness] = await Promise.all([
    launchChromium(),
    startRelayHarness({ config: { selfServe: true, encryptionKeys: KEYS, registrationsMayBeLost: true } }),
  ]);
  const sources = (await (await fetch(`${harness.emulator.url}/__emulator/sources/${SITE}`)).json()) as { plausible: typeof plausible };
  plausible = sources.plausible;
  relayId = sourceWebsiteId({ kind: 'plausible', ...plausible }) ?? '';
});
afterAll(async () => {
  await Promise.all([browser?.close(), harness?.close()]);
});

async function ownerPage(): Promise<{ page: Page; violations: string[] }> {
  const page = await browser.newPage();
  const violations = policyViolations(page);
  expect((await page.goto(`${harness.relayUrl}/`))?.status()).toBe(200);
  return { page, violations };
}

async function submit(page: Page): Promise<string> {
  await page.click('button[type=submit]');
  await page.waitForFunction(() => !/Checking/.test(document.getElementById('status')!.textContent ?? ''));
  return (await page.textContent('#status')) ?? '';
}

describe('the owner page with a source', () => {
  it('shows the fields of the chosen kind, with where to create its key, and hides the token', async () => {
    const { page } = await ownerPage();
    expect(await page.isVisible('#token')).toBe(true);
    expect(await page.isVisible('#source-plausible-apiKey')).toBe(false);
    await page.selectOption('#source-kind', 'plausible');
    expect(await page.isVisible('#token')).toBe(false);
    expect(await page.isVisible('#source-plausible-apiKey')).toBe(true);
    expect(await page.getAttribute('#source-plausible-apiKey', 'type')).toBe('password');
    expect(await page.isVisible('#source-fathom-apiKey')).toBe(false);
    await page.selectOption('#source-kind', 'fathom');
    expect(await page.textContent('fieldset[data-kind="fathom"] .hint')).toMatch(/Every call counts as a pageview on your Fathom plan/);
    await page.selectOption('#source-kind', 'ga4');
    expect(await page.isVisible('#source-ga4-credentials')).toBe(true);
    // With a source, the site names the website: no website ID is asked.
    expect(await page.isVisible('#website-id')).toBe(false);
    await page.fill('#source-ga4-propertyId', '1');
    await page.fill('#source-ga4-credentials', '{ not json');
    expect(await submit(page)).toMatch(/The JSON key is not JSON/);
    await page.close();
  });

  it('registers a Plausible website, shows its count over 5 minutes, and keeps the key nowhere', async () => {
    const { page, violations } = await ownerPage();
    await page.selectOption('#source-kind', 'plausible');
    await page.fill('#source-plausible-siteId', plausible.siteId);
    await page.fill('#source-plausible-apiKey', 'not-the-key-1234');
    await page.fill('#source-plausible-base', plausible.base);
    expect(await submit(page)).toMatch(/Plausible refused the key or the site "not-relayed"/);
    expect(await page.isHidden('#result')).toBe(true);

    await page.fill('#source-plausible-apiKey', plausible.apiKey);
    expect(await submit(page)).toBe('Registered.');
    await page.waitForFunction(() => /on your website|not available/.test(document.getElementById('count')!.textContent ?? ''));
    expect(await page.textContent('#count')).toMatch(/^\d+ visitors? on your website in the last 5 minutes$/);
    expect(await page.textContent('#tag-website-id')).toBe(relayId);

    const traces = await pageTraces(page, 'source-plausible-apiKey');
    expect(traces.field).toBe('');
    expect(traces.fetched).toContain('/api/v1/websites');
    for (const [where, text] of Object.entries(traces)) expect(text, where).not.toContain(plausible.apiKey);
    expect(page.url()).toBe(`${harness.relayUrl}/`);
    expect(violations).toEqual([]);
    // The relay serves it as the page said, with the window in the answer.
    expect((await harness.get(`?websiteId=${encodeURIComponent(relayId)}`)).json).toMatchObject({ websiteId: relayId, windowMinutes: 5 });
    await page.close();
  });
});
