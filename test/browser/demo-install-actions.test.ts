import { describe, expect, it } from 'vitest';
import { demoInChromiumForSuite } from './support/demo-in-chromium.js';

/**
 * Issue 39 §5: each install tab of the demo ends in something a marketer can do on the demo itself,
 * and the widget's settings speak a marketer's words, the developer's one click away. In `npm start`'s
 * server (Vite, the emulator, the demo relay under /relay/), in headless Chromium.
 */
const demo = demoInChromiumForSuite();

describe("the demo's install tabs end in an action", () => {
  it('Shopify: the check the app makes, on the demo relay page', async () => {
    const page = await demo.browser.newPage();
    await page.goto(`${demo.origin}/`);
    const panel = page.getByRole('tabpanel', { name: 'Shopify' });
    await panel.getByRole('link', { name: "this demo's relay page" }).click();
    await page.waitForURL(`${demo.origin}/relay/`);
    expect(await page.getByRole('button', { name: 'Register' }).isVisible()).toBe(true);
    await page.close();
  });

  it('WordPress: the plugin zip, made from this checkout', async () => {
    const page = await demo.browser.newPage();
    await page.goto(`${demo.origin}/`);
    await page.getByRole('tab', { name: 'WordPress' }).click();
    const link = page.getByRole('tabpanel', { name: 'WordPress' }).getByRole('link', { name: /Download the plugin/ });
    const href = new URL((await link.getAttribute('href'))!, `${demo.origin}/`).href;
    const zip = await fetch(href);
    expect([zip.status, zip.headers.get('content-type')]).toEqual([200, 'application/zip']);
    const bytes = new Uint8Array(await zip.arrayBuffer());
    // A zip (PK\x03\x04) holding the plugin's folder with the element's script.
    expect([...bytes.slice(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    expect(new TextDecoder('latin1').decode(bytes)).toContain('live-visitors/assets/live-visitors.js');
    await page.close();
  });

  it("Snippet: the relay snippet loads the element from the demo relay's own address", async () => {
    const page = await demo.browser.newPage();
    await page.goto(`${demo.origin}/`);
    await page.getByRole('tab', { name: 'Snippet' }).click();
    await expect.poll(() => page.locator('#relay-script-url').textContent()).toMatch(/^http/);
    const scriptUrl = (await page.locator('#relay-script-url').textContent())!;
    expect(scriptUrl).toMatch(new RegExp(`^${demo.origin}/relay/element/[^/]+/live-visitors\\.js$`));
    const snippet = (await page.locator('#snippet-relay').textContent())!;
    expect(snippet).toContain(`script.src = '${scriptUrl}';`);
    expect(snippet).toContain(`api-base="${demo.origin}/relay"`);
    const script = await fetch(scriptUrl);
    expect([script.status, script.headers.get('content-type'), script.headers.get('access-control-allow-origin')]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      '*',
    ]);
    await page.close();
  });
});

describe("the widget's settings", () => {
  it("speak a marketer's words; the developer's attributes are one click away", async () => {
    const page = await demo.browser.newPage();
    await page.goto(`${demo.origin}/`);
    const settings = page.locator('#settings');
    for (const label of ['Sentence ({count}: the number)', 'Sentence for one shopper', 'Show it from (shoppers on the site)']) {
      expect(await settings.getByLabel(label, { exact: true }).isVisible(), label).toBe(true);
    }
    expect(
      await settings
        .locator('select[name="lang"], select[name="theme"]')
        .evaluateAll((menus) => menus.map((menu) => menu.checkVisibility())),
    ).toEqual([true, true]);
    const websiteId = settings.getByLabel(/Website ID/);
    expect(await websiteId.isVisible()).toBe(false);
    await settings.getByText('For your developer').click();
    expect(await websiteId.isVisible()).toBe(true);
    expect(await settings.getByLabel(/Keep showing the last count/).isVisible()).toBe(true);
    await page.close();
  });
});
