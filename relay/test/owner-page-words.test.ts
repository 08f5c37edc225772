// @vitest-environment node
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../test/browser/support/chromium.js';
import { type RelayHarness, startRelayHarness } from './support/relay-harness.js';

/**
 * The owner page in a real Chromium, in English (it has no other language yet), speaking to owners:
 * when to try again after too many attempts, why a count of 0 shows nothing on the shop's pages,
 * an introduction that follows the chosen source, and a website's state and removal with the same
 * proof. Against a self-serving relay and the emulator.
 */
const OWNED = { id: 'not-relayed', token: 'tokC-SECRET-0000' } as const;
const KEYS = [`words:${btoa('w'.repeat(32))}`];

let browser: Browser;
let harness: RelayHarness;
beforeAll(async () => {
  [browser, harness] = await Promise.all([
    launchChromium(),
    startRelayHarness({ config: { selfServe: true, encryptionKeys: KEYS, registrationsMayBeLost: true } }),
  ]);
}, 30_000);
afterAll(async () => {
  await Promise.all([browser?.close(), harness?.close()]);
});

async function ownerPage(relayUrl = harness.relayUrl): Promise<Page> {
  const page = await browser.newPage();
  expect((await page.goto(`${relayUrl}/`))?.status()).toBe(200);
  return page;
}

/** Presses a button and waits for the page's answer. */
async function press(page: Page, selector: string): Promise<string> {
  await page.click(selector);
  await page.waitForFunction(() => !/^(Checking|Removing)/.test(document.getElementById('status')!.textContent ?? ''));
  return (await page.textContent('#status')) ?? '';
}

describe('the owner page, in owners’ words', () => {
  it('introduces the proof the chosen source asks for', async () => {
    const page = await ownerPage();
    expect(await page.textContent('#intro-proof')).toBe('Your API token proves the website is yours');
    await page.selectOption('#source-kind', 'plausible');
    expect(await page.textContent('#intro-proof')).toBe('Your Plausible Stats API key proves the site is yours');
    await page.selectOption('#source-kind', 'ga4');
    expect(await page.textContent('#intro-proof')).toBe("Your service account's JSON key proves the site is yours");
    // Each empty field is named by its label, and a bare host is told to be a whole address.
    expect(await press(page, 'button[type=submit]')).toBe('Enter "Property ID".');
    await page.selectOption('#source-kind', 'plausible');
    await page.fill('#source-plausible-siteId', 'shop.example');
    await page.fill('#source-plausible-apiKey', 'some-key-1234');
    await page.fill('#source-plausible-base', 'plausible.shop.example');
    expect(await press(page, 'button[type=submit]')).toBe(
      '"API address": enter the whole address, starting with https://, like https://plausible.shop.example.',
    );
    expect(await page.getAttribute('#source-plausible-base', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('#source-plausible-siteId')).toBe('shop.example');
    // Umami takes one of two proofs, and says so.
    await page.selectOption('#source-kind', 'umami');
    await page.fill('#source-umami-websiteId', 'a-website');
    expect(await press(page, 'button[type=submit]')).toBe(
      'Enter "API key (Umami Cloud)", or "User name (self-hosted)" and "Password (self-hosted)".',
    );
    await page.close();
  }, 30_000);

  it('says why a count of 0 shows nothing yet, shows the state, and removes the website with the same proof', async () => {
    const page = await ownerPage();
    await page.fill('#website-id', OWNED.id);
    await page.fill('#token', OWNED.token);
    expect(await press(page, 'button[type=submit]')).toBe('Registered.');
    await page.waitForFunction(() => /visitors? on your website/.test(document.getElementById('count')!.textContent ?? ''));
    expect(await page.textContent('#count')).toBe('0 visitors on your website');
    expect(await page.textContent('#count-note')).toBe(
      "Your pages show the sentence once at least 1 visitor is on the site (the element's min attribute); until then the space it keeps stays empty.",
    );
    expect(await page.textContent('#count-when')).toMatch(/^\(collected at .+\)$/);
    await page.close();

    // Later, another visit: the website's state from its ID alone, then its removal with its token.
    const later = await ownerPage();
    await later.fill('#website-id', OWNED.id);
    expect(await press(later, '#look')).toBe('');
    await later.waitForFunction(() => /on your website/.test(document.getElementById('count')!.textContent ?? ''));
    expect(await later.isVisible('#result')).toBe(true);
    expect(await press(later, '#remove')).toBe('Enter "API token". Copy it from your analytics service\'s settings.');
    await later.fill('#token', 'not-the-token-9999');
    expect(await press(later, '#remove')).toMatch(/refused this token for this website: copy the API token again/);
    await later.fill('#token', OWNED.token);
    expect(await press(later, '#remove')).toBe(
      'Removed: "not-relayed" is no longer on this relay, and its secret is deleted. Pages that still show the element show nothing.',
    );
    expect(await later.inputValue('#token')).toBe('');
    expect((await harness.get(`?websiteId=${OWNED.id}`)).status).toBe(404);
    await press(later, '#look');
    await later.waitForFunction(() => /^none/.test(document.getElementById('count')!.textContent ?? ''));
    expect(await later.textContent('#count')).toBe('none: "not-relayed" is not registered on this relay');
    await later.close();
  }, 30_000);

  it('after too many attempts, says when to try again, from Retry-After', async () => {
    // One attempt an hour for one client: a tenth of 10.
    const strict = await startRelayHarness({
      config: { selfServe: true, encryptionKeys: KEYS, registrationsMayBeLost: true, registrationsPerHour: 10 },
    });
    try {
      const page = await ownerPage(strict.relayUrl);
      await page.fill('#website-id', OWNED.id);
      await page.fill('#token', 'not-the-token-9999');
      expect(await press(page, 'button[type=submit]')).toMatch(/refused this token/);
      const answered = page.waitForResponse((response) => response.url().includes('/api/v1/websites/'));
      const said = await press(page, 'button[type=submit]');
      const retryAfter = Number((await answered).headers()['retry-after']);
      expect(retryAfter).toBeGreaterThan(90);
      expect(said).toMatch(
        new RegExp(
          `^Too many attempts from your connection for now: nothing was changed\\. Try again in about ${Math.round(retryAfter / 60)} minutes \\(at \\d{1,2}:\\d{2} [AP]M\\)\\.$`,
        ),
      );
      // What was typed is still there.
      expect(await page.inputValue('#website-id')).toBe(OWNED.id);
      await page.close();
    } finally {
      await strict.close();
    }
  }, 30_000);
});
