import type { BrowserContext, Page } from 'playwright-core';

/** When the element's sentence first showed, by the page's own clock. */
export interface FirstText {
  /** `performance.now()` at the animation frame that first had the sentence. */
  at: number;
  /** Which animation frame that was: 1 is the page's first (it gets none while a render-blocking script loads). */
  frame: number;
  /** The first contentful paint (NaN if none yet). */
  firstPaint: number;
  /** When the load event began (0 before it). */
  load: number;
}

/**
 * Runs in every page. A string, not a function: under tsx (`npm run bench`) esbuild wraps inner
 * functions in its `__name` helper, which the page does not have.
 */
const RECORD_FIRST_TEXT = `(() => {
  let frame = 0;
  const look = () => {
    frame += 1;
    if (document.querySelector('live-visitors')?.shadowRoot?.querySelector('[part="text"]')?.textContent) {
      window.firstText = { at: performance.now(), frame };
    } else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})()`;

/** Makes every page of `context` note the animation frame at which the sentence first shows. */
export async function recordFirstText(context: BrowserContext | Page): Promise<void> {
  await context.addInitScript({ content: RECORD_FIRST_TEXT });
}

/** Waits for the sentence, then reads when it showed against the page's first paint and load. */
export async function firstText(page: Page): Promise<FirstText> {
  // The paint's entry is queued once the frame is presented, which can be after the sentence's frame.
  await page.waitForFunction(() => 'firstText' in window && performance.getEntriesByName('first-contentful-paint').length > 0, undefined, {
    timeout: 10_000,
  });
  return page.evaluate(() => ({
    ...(window as unknown as { firstText: { at: number; frame: number } }).firstText,
    firstPaint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
    load: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventStart,
  }));
}
