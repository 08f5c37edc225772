import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { collapseWhitespace, README_SCRIPT_URL, readmeSnippet } from '../support/readme-snippet.js';
import { auditAccessibility, describeViolations } from './support/axe.js';
import { demoInChromiumForSuite } from './support/demo-in-chromium.js';
import { SimulatedTime } from './support/simulated-time.js';
import { brokenText, readWidgets, shownCount } from './support/widget-probe.js';

/**
 * Issue 3, last item: the demo `npm start` serves (Vite with the emulator mounted on the same
 * origin) loads in headless Chromium and shows a number; a screenshot is kept in `.artifacts/`.
 */

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const SCREENSHOT = root('.artifacts/demo.png');
const REALTIME_PATH = '/api/v1/realtime';

const demo = demoInChromiumForSuite();

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
    const page = await demo.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const { errors } = trackPage(page);
    await page.goto(`${demo.origin}/`);

    const widget = page.locator('#widget');
    await expect.poll(() => widget.getAttribute('state')).toBe('live');
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

  it("the snippets to paste are the README's: its script for the <head>, and the element with the lines kept for it", async () => {
    const page = await demo.browser.newPage();
    await page.goto(`${demo.origin}/`);
    // The relay snippet loads the element from the demo relay itself (demo-install-actions.test.ts).
    await expect.poll(() => page.locator('#relay-script-url').textContent()).toMatch(/^http/);
    const relayScriptUrl = (await page.locator('#relay-script-url').textContent())!;
    for (const [id, scriptUrl] of [
      ['snippet', README_SCRIPT_URL],
      ['snippet-relay', relayScriptUrl],
    ] as const) {
      const { script, elementStyle } = readmeSnippet(scriptUrl);
      const text = (await page.locator(`#${id}`).textContent()) ?? '';
      expect(collapseWhitespace(text)).toContain(collapseWhitespace(script));
      expect(text).toMatch(new RegExp(`<live-visitors [^>]*style="${elementStyle}"></live-visitors>`));
    }
    await page.close();
  });

  it('the product page explains the number on hover, logs the impression with its dataLayer push, and the holdout switch changes the group', async () => {
    const page = await demo.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const { errors } = trackPage(page);
    await page.goto(`${demo.origin}/`);
    const widget = page.locator('#widget');
    await expect.poll(() => widget.getAttribute('state')).toBe('live');

    await widget.locator('[part="text"]').hover();
    await expect.poll(() => widget.locator('[part="disclosure"]').isVisible()).toBe(true);
    expect(await widget.locator('[part="disclosure"]').textContent()).toMatch(
      /^Unique visitors on this whole site in the last 3 minutes · updated /,
    );

    const log = page.getByRole('list', { name: 'Impressions and dataLayer pushes' });
    await expect.poll(() => log.textContent()).toContain('variant "shown"');
    expect(await log.textContent()).toContain('dataLayer.push({"event":"live_visitors_impression","live_visitors_variant":"shown"');
    expect(await page.locator('#variant').textContent()).toBe('shown');

    await page.getByRole('button', { name: 'Put this browser in the other group' }).click();
    await page.waitForLoadState('load');
    await expect.poll(() => page.locator('#variant').textContent()).toBe('holdout');
    expect(await page.getByLabel('Hold out 20 % of browsers').isChecked()).toBe(true);
    // The reload keeps the panel's scroll position: the product is out of view, and not seen until scrolled to.
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect.poll(() => log.textContent()).toContain('variant "holdout"');
    expect(await widget.locator('[part="text"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the many-widgets page: 12 widgets show the same count from exactly one request', async () => {
    const context = await demo.browser.newContext();
    // Simulated time, paused: the page's 15 s interval cannot add a request while the test looks.
    const time = await SimulatedTime.install(context);
    const page = await context.newPage();
    const { errors, realtimeRequests } = trackPage(page);
    await page.goto(`${demo.origin}/many.html`);
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

describe('the plan calculator on the product page', () => {
  /** The calculator's inputs, figures and verdict, found as a marketer finds them: by their labels. */
  async function openCalculator() {
    const page = await demo.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const { errors } = trackPage(page);
    await page.goto(`${demo.origin}/`);
    const form = page.locator('#plan-calculator');
    const read = async () => ({
      note: await page.locator('#plan-interval-note').textContent(),
      direct: await page.locator('#plan-direct').textContent(),
      relay: await page.locator('#plan-relay').textContent(),
      verdict: await page.locator('#plan-verdict').textContent(),
    });
    return {
      page,
      errors,
      form,
      shoppers: form.getByLabel('Shoppers on the site at once'),
      interval: form.getByLabel('Interval (seconds)'),
      plan: form.getByLabel('Plan'),
      read,
      // Whole pixels: a line's box moves by a fraction of a pixel with the glyphs it holds (×, ’, digits).
      height: async () => Math.round((await form.boundingBox())!.height),
    };
  }

  it('by default: 5 shoppers on Free at 60 s are over the plan directly, and the relay fits', async () => {
    const { page, errors, shoppers, interval, plan, read } = await openCalculator();
    expect(await shoppers.inputValue()).toBe('5');
    expect(await interval.inputValue()).toBe('60');
    expect(await plan.inputValue()).toBe('free');
    await expect.poll(read).toEqual({
      note: 'The element polls at most every 15 s; lower values are raised to 15 s.',
      direct: '300 an hour (5 × 60): over the Free plan’s 100.',
      relay: '60 an hour, whatever the number of shoppers: within the Free plan’s 100.',
      verdict:
        'Your Free plan covers 1 shopper at once without a relay, so 5 shoppers need the relay; with the relay it covers any number (60 requests an hour).',
    });
    // Screen readers hear the verdict (politely), not every figure on every keystroke.
    expect(await page.locator('#plan-verdict').evaluate((output) => [output.tagName, output.getAttribute('aria-live')])).toEqual([
      'OUTPUT',
      'polite',
    ]);
    expect(await page.locator('#plan-direct').getAttribute('aria-live')).toBe('off');
    expect(await page.locator('#plan-direct').getAttribute('data-over')).toBe('true');
    expect(await page.locator('#plan-relay').getAttribute('data-over')).toBe('false');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('200 shoppers on Enterprise: 12,000 an hour directly is over, the plan covers 166, the relay still 60', async () => {
    const { page, errors, shoppers, plan, read, height } = await openCalculator();
    await expect.poll(read).toMatchObject({ direct: '300 an hour (5 × 60): over the Free plan’s 100.' });
    const before = await height();

    await shoppers.fill('200');
    await expect.poll(read).toMatchObject({ direct: '12,000 an hour (200 × 60): over the Free plan’s 100.' });
    await plan.selectOption({ label: 'Enterprise: 10,000 requests an hour' });
    await expect.poll(read).toEqual({
      note: 'The element polls at most every 15 s; lower values are raised to 15 s.',
      direct: '12,000 an hour (200 × 60): over the Enterprise plan’s 10,000.',
      relay: '60 an hour, whatever the number of shoppers: within the Enterprise plan’s 10,000.',
      verdict:
        'Your Enterprise plan covers 166 shoppers at once without a relay, so 200 shoppers need the relay; with the relay it covers any number (60 requests an hour).',
    });
    // 166 fit directly: the verdict says so rather than sending them to the relay.
    await shoppers.fill('166');
    await expect.poll(read).toMatchObject({
      direct: '9,960 an hour (166 × 60): within the Enterprise plan’s 10,000.',
      verdict: expect.stringContaining('covers 166 shoppers at once without a relay, so 166 shoppers fit;'),
    });
    // Room is reserved for the texts: changing the inputs does not move the panel below.
    expect(await height()).toBe(before);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('interval 15 on Free: not even one shopper directly, the relay needs 240 an hour and 36 s fits', async () => {
    const { page, errors, interval, read, height } = await openCalculator();
    await expect.poll(read).toMatchObject({ relay: expect.stringContaining('60 an hour') });
    const before = await height();

    await interval.fill('15');
    await expect.poll(read).toEqual({
      note: 'The element polls at most every 15 s; lower values are raised to 15 s.',
      direct: '1,200 an hour (5 × 240): over the Free plan’s 100.',
      relay: '240 an hour, whatever the number of shoppers: over the Free plan’s 100.',
      verdict:
        'Your Free plan does not cover even 1 shopper at once without a relay: one browser sends 240 requests an hour at 15 s; ' +
        'with the relay it needs 240 requests an hour at 15 s, over the plan’s 100: an interval of 36 s or more fits (100 an hour).',
    });
    expect(await page.locator('#plan-relay').getAttribute('data-over')).toBe('true');
    expect(await height()).toBe(before);
    await mkdir(root('.artifacts'), { recursive: true });
    await page.locator('#plan-calculator').screenshot({ path: root('.artifacts/plan-calculator.png') });

    // The interval it names does fit; one second less does not.
    await interval.fill('36');
    await expect.poll(read).toMatchObject({ relay: '100 an hour, whatever the number of shoppers: within the Free plan’s 100.' });
    await interval.fill('35');
    await expect.poll(read).toMatchObject({ relay: '103 an hour, whatever the number of shoppers: over the Free plan’s 100.' });

    // Below the element's minimum: the note says so, and the numbers use 15 s as the element would.
    await interval.fill('5');
    await expect.poll(read).toMatchObject({
      note: '5 s is below the element’s minimum: it polls every 15 s, so the numbers use 15 s.',
      relay: '240 an hour, whatever the number of shoppers: over the Free plan’s 100.',
    });
    await interval.fill('');
    await expect.poll(read).toMatchObject({
      note: 'No interval given: the element uses its default of 60 s, and so do the numbers.',
      relay: '60 an hour, whatever the number of shoppers: within the Free plan’s 100.',
    });
    expect(await height()).toBe(before);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('has no axe violation, over the plan or within it', async () => {
    const { page, errors, interval, read } = await openCalculator();
    await expect.poll(read).toMatchObject({ relay: expect.stringContaining('60 an hour') });
    expect(describeViolations(await auditAccessibility(page, '#plan-calculator'))).toBe('');
    await interval.fill('10');
    await expect.poll(read).toMatchObject({ note: expect.stringContaining('below the element’s minimum') });
    expect(describeViolations(await auditAccessibility(page, '#plan-calculator'))).toBe('');
    expect(errors).toEqual([]);
    await page.close();
  });
});
