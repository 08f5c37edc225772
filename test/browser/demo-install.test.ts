import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { auditAccessibility, describeViolations } from './support/axe.js';
import { demoInChromiumForSuite } from './support/demo-in-chromium.js';
import { readWidgets } from './support/widget-probe.js';

/**
 * Issue 31 §3: the demo's last step is the way a marketer installs, one tab per platform. In
 * `npm start`'s server (Vite, the emulator at the origin, a self-serving relay under /relay/),
 * headless Chromium goes through the Tag Manager tab: the demo relay's registration page, the
 * emulator's `small-shop` registered with its token, and an element given the values the page
 * says to paste. Tag Manager itself is not run here (its sandbox is tested in
 * integrations/google-tag-manager/test/): the tag's fields become these two attributes.
 */
/** Known to the emulator, left out of the demo relay's config for a marketer to register. */
const SMALL_SHOP = { id: 'small-shop', token: 'small-shop-token' } as const;
const TABS = ['Shopify', 'WordPress', 'Tag Manager', 'Snippet'];

const demo = demoInChromiumForSuite();

async function openDemo(): Promise<{ page: Page; errors: string[] }> {
  const page = await demo.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${demo.origin}/`);
  return { page, errors };
}

/** Which tab is selected, which panels show, and which element has the focus. */
async function readTabs(page: Page): Promise<{ selected: string[]; shown: string[]; focused: string }> {
  return page.evaluate(() => {
    const tabs = [...document.querySelectorAll<HTMLElement>('.install [role="tab"]')];
    return {
      selected: tabs.filter((tab) => tab.getAttribute('aria-selected') === 'true').map((tab) => tab.textContent!),
      shown: [...document.querySelectorAll<HTMLElement>('.install [role="tabpanel"]')]
        .filter((panel) => panel.checkVisibility())
        .map((panel) => document.getElementById(panel.getAttribute('aria-labelledby')!)!.textContent!),
      focused:
        document.activeElement?.getAttribute('role') === 'tab' ? document.activeElement.textContent! : (document.activeElement?.id ?? ''),
    };
  });
}

async function relayAnswer(relayAddress: string, websiteId: string): Promise<{ status: number; count: unknown }> {
  const response = await fetch(`${relayAddress}/api/v1/realtime?websiteId=${websiteId}`);
  const body = (await response.json()) as { currentVisitors?: unknown };
  return { status: response.status, count: body.currentVisitors };
}

describe("the demo's install tabs", () => {
  it("Tag Manager: register small-shop on the demo relay's page, and the tag's two values show its live count", async () => {
    const { page, errors } = await openDemo();
    await page.getByRole('tab', { name: 'Tag Manager' }).click();
    const panel = page.getByRole('tabpanel', { name: 'Tag Manager' });
    const relayAddress = (await panel.locator('#tag-relay-address').textContent())!;
    expect(relayAddress).toBe(`${demo.origin}/relay`);
    // Before registration the demo relay does not serve small-shop: what follows is the registration's doing.
    expect((await relayAnswer(relayAddress, SMALL_SHOP.id)).status).toBe(404);

    // The relay's page reads its files relative to itself: /relay sends the browser to /relay/.
    const bare = await fetch(`${demo.origin}/relay`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/relay/']);

    await panel.getByRole('link', { name: "this demo's relay" }).click();
    await page.waitForURL(`${demo.origin}/relay/`);
    await page.getByLabel('Website ID', { exact: true }).fill(SMALL_SHOP.id);
    await page.getByLabel('API token', { exact: true }).fill(SMALL_SHOP.token);
    await page.getByRole('button', { name: 'Register' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('Registered.');
    await expect.poll(() => page.locator('#count').textContent()).toMatch(/^\d+ visitors? on your website$/);
    const values = {
      websiteId: await page.locator('#tag-website-id').textContent(),
      apiBase: await page.locator('#tag-api-base').textContent(),
    };
    // The values the tab told the marketer to fill in are the ones the relay's page gives.
    expect(values).toEqual({ websiteId: SMALL_SHOP.id, apiBase: relayAddress });
    expect(await page.locator('#snippet-element').textContent()).toContain(
      `<live-visitors website-id="${SMALL_SHOP.id}" api-base="${relayAddress}"`,
    );

    // What the tag puts in a page: the element with those two values and no token.
    await page.goBack();
    await page.evaluate(({ websiteId, apiBase }) => {
      const element = document.createElement('live-visitors');
      element.id = 'from-tag-manager';
      element.setAttribute('website-id', websiteId!);
      element.setAttribute('api-base', apiBase!);
      document.body.append(element);
    }, values);
    const placed = page.locator('#from-tag-manager');
    await expect.poll(() => placed.getAttribute('state')).toBe('live');
    const reading = (await readWidgets(page)).at(-1)!;
    expect(reading.text).toMatch(/^\d+ (person is|people are) browsing this shop right now$/);
    // The count is the relay's for small-shop (both read its cache; a poll rides over an interval's turn).
    await expect
      .poll(async () => [
        await placed.evaluate((element) => (element as HTMLElement & { count: number }).count),
        (await relayAnswer(relayAddress, SMALL_SHOP.id)).count,
      ])
      .toSatisfy(([shown, served]) => typeof shown === 'number' && shown === served);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('works by keyboard: one tab stop, arrows and Home/End move and show, Tab enters the panel; no axe violation', async () => {
    const { page, errors } = await openDemo();
    expect(await readTabs(page)).toEqual({ selected: ['Shopify'], shown: ['Shopify'], focused: '' });
    // Only the selected tab is in the tab order.
    const tabIndexes = await page.locator('.install [role="tab"]').evaluateAll((tabs) => tabs.map((tab) => (tab as HTMLElement).tabIndex));
    expect(tabIndexes).toEqual([0, -1, -1, -1]);

    await page.getByRole('tab', { name: 'Shopify' }).focus();
    const steps: [string, string][] = [
      ['ArrowRight', 'WordPress'],
      ['ArrowRight', 'Tag Manager'],
      ['ArrowRight', 'Snippet'],
      ['ArrowRight', 'Shopify'],
      ['ArrowLeft', 'Snippet'],
      ['Home', 'Shopify'],
      ['End', 'Snippet'],
      ['ArrowLeft', 'Tag Manager'],
    ];
    for (const [key, tab] of steps) {
      await page.keyboard.press(key);
      expect(await readTabs(page), `${key} to ${tab}`).toEqual({ selected: [tab], shown: [tab], focused: tab });
      const violations = await auditAccessibility(page, '.install');
      expect(violations, describeViolations(violations)).toEqual([]);
    }
    // Tab leaves the list for the shown panel, and then its link.
    await page.keyboard.press('Tab');
    expect((await readTabs(page)).focused).toBe('install-tag-manager');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("this demo's relay");
    // Shift+Tab back to the list lands on the selected tab, not the first.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    expect((await readTabs(page)).focused).toBe('Tag Manager');

    // The snippet tab keeps the snippet generator: it follows the settings form.
    await page.getByRole('tab', { name: 'Snippet' }).click();
    await page.getByLabel('Show it from (shoppers on the site)').fill('5');
    await expect.poll(() => page.locator('#snippet-relay').textContent()).toContain(' min="5"');
    expect(await readTabs(page)).toMatchObject({ selected: ['Snippet'], shown: ['Snippet'] });
    expect(TABS).toEqual(await page.locator('.install [role="tab"]').allTextContents());
    expect(errors).toEqual([]);
    await page.close();
  });
});
