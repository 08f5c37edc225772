import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorServer, type Fault, startEmulatorServer } from '../../emulator/src/index.js';
import { auditAccessibility, describeViolations } from './support/axe.js';
import { launchChromium } from './support/chromium.js';
import { type StaticSite, startStaticSite } from './support/static-site.js';
import { sentence, shownText } from './support/widget.js';

const VISITORS = 23;
const SENTENCE = sentence(VISITORS);
const FALLBACK = 'Fresh from the roaster: ships tomorrow.';

let browser: Browser;
let site: StaticSite;
let service: EmulatorServer;
let context: BrowserContext | undefined;
let pageErrors: string[] = [];

beforeAll(async () => {
  [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startEmulatorServer({ port: 0, controls: true })]);
  for (let visitor = 0; visitor < VISITORS; visitor += 1) service.emulator.recordPageview('demo-shop', `visitor-${visitor}`);
  // A shop page as the README tells shops to write it: one script tag, the element inside the offer,
  // once bare and once with fallback content, so both renderings of every state are audited.
  site.put(
    '/offer.html',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Winter sale</title>
     <script type="module" src="/live-visitors.js"></script></head>
     <body><main><h1>Winter sale</h1>
       <p class="offer">All beans −20% until Sunday.
         <live-visitors id="bare" website-id="demo-shop" token="demo-token" api-base="${service.url}"></live-visitors></p>
       <p class="offer">Nordic Roast, 1 kg.
         <live-visitors id="with-fallback" website-id="demo-shop" token="demo-token" api-base="${service.url}"><span slot="fallback">${FALLBACK}</span></live-visitors></p>
     </main></body></html>`,
  );
});

afterEach(async () => {
  service.emulator.clearFault();
  const errors = pageErrors;
  pageErrors = [];
  await context?.close();
  context = undefined;
  expect(errors, 'uncaught errors on the page').toEqual([]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), site?.close(), service?.close()]);
});

/** A fresh profile (empty localStorage) on the offer page; uncaught errors fail the test. */
async function openOffer(): Promise<Page> {
  context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${site.url}/offer.html`);
  return page;
}

async function expectNoViolations(page: Page, selector?: string): Promise<void> {
  const violations = await auditAccessibility(page, selector);
  expect(violations, `axe violations on ${selector ?? 'the page'}:\n${describeViolations(violations)}`).toEqual([]);
}

async function expectState(page: Page, state: string): Promise<void> {
  for (const id of ['bare', 'with-fallback']) {
    await expect.poll(() => page.locator(`#${id}`).getAttribute('state')).toBe(state);
  }
}

interface StateCase {
  state: 'live' | 'loading' | 'stale' | 'unavailable';
  /** Injected at the service before the page loads. */
  fault?: Fault;
  /** Brings the freshly opened page into the state. */
  reach(page: Page): Promise<void>;
  showsCount: boolean;
}

const STATES: StateCase[] = [
  { state: 'live', showsCount: true, reach: async () => {} },
  {
    state: 'loading',
    fault: { kind: 'hang' },
    showsCount: false,
    reach: async () => {
      // The answer never comes: the service holds the request and the element waits.
      await expect.poll(() => service.emulator.stats().waitingRequests).toBeGreaterThan(0);
    },
  },
  {
    state: 'stale',
    showsCount: true,
    reach: async (page) => {
      await expectState(page, 'live');
      service.emulator.setFault({ kind: 'server-error' });
      await page.locator('#bare').evaluate((element: HTMLElementTagNameMap['live-visitors']) => element.refresh());
    },
  },
  { state: 'unavailable', fault: { kind: 'not-found' }, showsCount: false, reach: async () => {} },
];

describe('axe finds no violation in any state of the element, on a plain shop page with the built bundle', () => {
  it.each(STATES)('$state', async ({ state, fault, reach, showsCount }) => {
    if (fault) service.emulator.setFault(fault);
    const page = await openOffer();
    await reach(page);
    await expectState(page, state);

    // The state is what it claims to be, in what a shopper sees.
    expect(await shownText(page.locator('#bare'))).toBe(showsCount ? SENTENCE : '');
    expect(await shownText(page.locator('#with-fallback'))).toBe(showsCount ? SENTENCE : FALLBACK);

    await expectNoViolations(page, '#bare');
    await expectNoViolations(page, '#with-fallback');
    await expectNoViolations(page);
  });
});

it('assistive technology reads the sentence once, without the decorative dot and without a live region', async () => {
  const page = await openOffer();
  await expectState(page, 'live');
  const tree = await page.locator('#bare').ariaSnapshot();
  // Exactly the sentence, the number once (emphasised), nothing for the dot, no status role.
  expect(tree).toBe(`- strong: "${VISITORS}"\n- text: ${SENTENCE.slice(String(VISITORS).length + 1)}`);
  const liveRegions = await page
    .locator('#bare')
    .evaluate((element) => element.shadowRoot!.querySelectorAll('[aria-live], [role="status"], [role="alert"], [role="log"]').length);
  expect(liveRegions).toBe(0);
  const indicatorHidden = await page
    .locator('#bare')
    .evaluate((element) => element.shadowRoot!.querySelector('[part="indicator"]')!.getAttribute('aria-hidden'));
  expect(indicatorHidden).toBe('true');
});

describe('prefers-reduced-motion', () => {
  const indicatorAnimation = (page: Page) =>
    page.locator('#bare').evaluate((element) => getComputedStyle(element.shadowRoot!.querySelector('[part="indicator"]')!).animationName);

  it('the indicator pulses by default', async () => {
    const page = await openOffer();
    await expectState(page, 'live');
    expect(await indicatorAnimation(page)).not.toBe('none');
  });

  it('reduce stops the pulse', async () => {
    const page = await openOffer();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await expectState(page, 'live');
    expect(await indicatorAnimation(page)).toBe('none');
  });
});

describe('the demo page (Vite dev server with the emulator mounted)', () => {
  let server: ViteDevServer;

  beforeAll(async () => {
    server = await createServer({
      configFile: new URL('../../vite.config.ts', import.meta.url).pathname,
      server: { port: 0, host: '127.0.0.1' },
      logLevel: 'silent',
    });
    await server.listen();
  });

  afterAll(async () => {
    await server?.close();
  });

  async function auditDemoPage(path: string, scope: { widgets: boolean; page: boolean }): Promise<void> {
    context = await browser.newContext();
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(new URL(path, server.resolvedUrls!.local[0]!).href);
    const widgets = page.locator('live-visitors');
    await expect.poll(() => widgets.count()).toBeGreaterThan(0);
    await expect.poll(() => widgets.evaluateAll((all) => all.every((widget) => widget.getAttribute('state') === 'live'))).toBe(true);
    if (scope.widgets) await expectNoViolations(page, 'live-visitors');
    if (scope.page) await expectNoViolations(page);
  }

  it.each([
    { name: 'product page', path: '/' },
    { name: 'many widgets', path: '/many.html' },
  ])('$name: no axe violation once every widget shows the live count', async ({ path }) => {
    await auditDemoPage(path, { widgets: true, page: true });
  });

  it('script tag only: no axe violation in the widget', async () => {
    await auditDemoPage('/script-tag.html', { widgets: true, page: false });
  });

  it('script tag only: no axe violation on the page', async () => {
    await auditDemoPage('/script-tag.html', { widgets: false, page: true });
  });
});
