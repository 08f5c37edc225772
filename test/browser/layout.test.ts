import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorServer, startEmulatorServer } from '../../emulator/src/index.js';
import { launchChromium } from './support/chromium.js';
import { type StaticSite, startStaticSite } from './support/static-site.js';

const VISITORS = 23;
/** Long enough after the first paint for any late rendering to have happened and been recorded. */
const SETTLE_MS = 3_000;

let browser: Browser;
let site: StaticSite;
let service: EmulatorServer;
let context: BrowserContext | undefined;
let pageErrors: string[] = [];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Geometry {
  state: string | null;
  widget: Box;
  /** The text after the widget on its line, and the paragraph below: what a late count would push. */
  tail: Box;
  below: Box;
}

interface Shift {
  value: number;
  sources: string[];
}

/** What the page recorded: the geometry in the first frame after the element was defined, and every layout shift. */
interface Recording {
  atDefinition: Geometry | null;
  shifts: Shift[];
}

declare global {
  interface Window {
    recording: Recording;
    geometry(): Geometry;
  }
}

/**
 * Installed before any page script. Records every layout shift from the start of the page
 * (Layout Instability API, buffered), and the geometry as soon as the element is defined and
 * has rendered once: the state the first paint after definition shows.
 */
function recordLayout(): void {
  const box = (element: Element): Box => {
    const { x, y, width, height } = element.getBoundingClientRect();
    return { x, y, width, height };
  };
  window.geometry = () => {
    const widget = document.querySelector('live-visitors')!;
    return {
      state: widget.getAttribute('state'),
      widget: box(widget),
      tail: box(document.querySelector('#tail')!),
      below: box(document.querySelector('#below')!),
    };
  };
  window.recording = { atDefinition: null, shifts: [] };
  const nameOf = (node: Node | null) =>
    node instanceof Element ? `${node.localName}${node.id ? `#${node.id}` : ''}` : (node?.nodeName ?? 'gone');
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Array<
      PerformanceEntry & { value: number; hadRecentInput: boolean; sources: Array<{ node: Node | null }> }
    >) {
      if (!entry.hadRecentInput)
        window.recording.shifts.push({ value: entry.value, sources: entry.sources.map((source) => nameOf(source.node)) });
    }
  }).observe({ type: 'layout-shift', buffered: true });
  void customElements.whenDefined('live-visitors').then(async () => {
    await document.querySelector('live-visitors')!.updateComplete;
    window.recording.atDefinition = window.geometry();
  });
}

beforeAll(async () => {
  [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startEmulatorServer({ port: 0, controls: true })]);
  for (let visitor = 0; visitor < VISITORS; visitor += 1) service.emulator.recordPageview('demo-shop', `visitor-${visitor}`);
  // A narrow column, so the sentence wraps and a late count would push the text after it and the
  // paragraph below. `blocking="render"` holds the first paint until the element is defined, so
  // what is measured is the element's own first render, not the browser painting before the
  // script ran (README: shops reserve that space with `live-visitors:not(:defined)`).
  site.put(
    '/offer.html',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Offer</title>
     <script type="module" blocking="render" src="/live-visitors.js"></script>
     <style>body { margin: 0; padding: 16px; width: 320px; font: 16px/1.5 sans-serif; }</style></head>
     <body><p id="offer">All beans −20% until Sunday.
       <live-visitors website-id="demo-shop" token="demo-token" api-base="${service.url}"></live-visitors>
       <span id="tail">Order today.</span></p>
     <p id="below">Free shipping over €40 · 30-day returns</p></body></html>`,
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

interface Load {
  recording: Recording;
  settled: Geometry;
  realtimeRequests: number;
}

/** Loads the offer page in `context` and reports what moved between the first render and a few seconds later. */
async function loadOffer(browserContext: BrowserContext): Promise<Load> {
  const page = await browserContext.newPage();
  let realtimeRequests = 0;
  page.on('request', (request) => {
    if (request.url().includes('/api/v1/realtime') && request.method() === 'GET') realtimeRequests += 1;
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${site.url}/offer.html`);
  await page.waitForTimeout(SETTLE_MS);
  const [recording, settled] = await page.evaluate(() => [window.recording, window.geometry()] as const);
  await page.close();
  return { recording, settled, realtimeRequests };
}

const cumulative = (shifts: Shift[]) => shifts.reduce((sum, shift) => sum + shift.value, 0);

describe('with a cached count, the first paint already has the final size', () => {
  it('a first load without a cache shifts the page when the count arrives (the measurement sees shifts)', async () => {
    context = await browser.newContext();
    await context.addInitScript(recordLayout);
    // A slow answer, so the count surely arrives frames after the first paint.
    service.emulator.setFault({ kind: 'slow', delaySeconds: 0.5 });
    const cold = await loadOffer(context);
    expect(cold.recording.atDefinition?.state).toBe('loading');
    expect(cold.recording.atDefinition?.widget.width).toBe(0);
    expect(cold.settled.state).toBe('live');
    expect(cold.settled.widget.width).toBeGreaterThan(0);
    expect(cold.settled.below.y).toBeGreaterThan(cold.recording.atDefinition!.below.y);
    expect(cumulative(cold.recording.shifts), JSON.stringify(cold.recording.shifts)).toBeGreaterThan(0);
  });

  it('the second load within the interval renders the stored count at once: CLS 0, same box, no request', async () => {
    context = await browser.newContext();
    await context.addInitScript(recordLayout);
    const first = await loadOffer(context);
    expect(first.realtimeRequests).toBe(1);
    expect(first.settled.state).toBe('live');

    const second = await loadOffer(context);
    expect(second.realtimeRequests).toBe(0);
    expect(second.recording.atDefinition?.state).toBe('live');
    expect(second.recording.shifts, 'layout shifts on the second load').toEqual([]);
    expect(cumulative(second.recording.shifts)).toBe(0);
    // The box right after definition is the box a few seconds later, and the same as the first
    // load's final one: nothing around the widget moved.
    expect(second.recording.atDefinition).toEqual(second.settled);
    expect(second.settled).toEqual(first.settled);
  });
});

describe('an element with nothing to show takes no space', () => {
  /** The same text with and without an element between the words. */
  const page = (websiteId: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Nothing to show</title>
     <script type="module" src="/live-visitors.js"></script>
     <style>body { margin: 0; padding: 16px; width: 320px; font: 16px/1.5 sans-serif; } p { margin: 0 0 1em; }</style></head>
     <body><p id="with">Before<live-visitors website-id="${websiteId}" token="demo-token" api-base="${service.url}"></live-visitors>After</p>
     <p id="without">Before<span></span>After</p></body></html>`;

  interface Measured {
    widget: Box;
    withParagraph: Box;
    withoutParagraph: Box;
    afterWith: Box;
    afterWithout: Box;
  }

  async function measure(target: Page): Promise<Measured> {
    return target.evaluate(() => {
      const box = (rect: DOMRect): Box => ({ x: rect.x, y: rect.y, width: rect.width, height: rect.height });
      const textAfter = (paragraph: Element) => {
        const range = document.createRange();
        range.selectNodeContents(paragraph.lastChild!);
        return box(range.getBoundingClientRect());
      };
      const withParagraph = document.querySelector('#with')!;
      const withoutParagraph = document.querySelector('#without')!;
      const widget = document.querySelector('live-visitors')!;
      return {
        widget: box(widget.getBoundingClientRect()),
        withParagraph: box(withParagraph.getBoundingClientRect()),
        withoutParagraph: box(withoutParagraph.getBoundingClientRect()),
        afterWith: textAfter(withParagraph),
        afterWithout: textAfter(withoutParagraph),
      };
    });
  }

  it.each([
    { state: 'unavailable', websiteId: 'no-such-shop', hang: false },
    { state: 'loading', websiteId: 'demo-shop', hang: true },
  ])('$state, no fallback content: width 0, the text around it as if it were not there', async ({ state, websiteId, hang }) => {
    if (hang) service.emulator.setFault({ kind: 'hang' });
    site.put(`/nothing-${state}.html`, page(websiteId));
    context = await browser.newContext();
    const target = await context.newPage();
    await target.goto(`${site.url}/nothing-${state}.html`);
    await expect.poll(() => target.locator('live-visitors').getAttribute('state')).toBe(state);
    const measured = await measure(target);
    expect(measured.widget.width).toBe(0);
    expect(measured.withParagraph.height).toBe(measured.withoutParagraph.height);
    expect(measured.afterWith.x).toBe(measured.afterWithout.x);
    expect(measured.afterWith.width).toBe(measured.afterWithout.width);
    expect(measured.afterWith.y - measured.withParagraph.y).toBe(measured.afterWithout.y - measured.withoutParagraph.y);
  });
});
