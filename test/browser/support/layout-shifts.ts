import type { Page } from 'playwright-core';

/**
 * Runs in the page (through `addInitScript` or `evaluate`): keeps the value of every layout shift,
 * those buffered before the call included. Self-contained, since Playwright sends its source.
 */
export function recordLayoutShifts(): void {
  const shifts: number[] = [];
  (window as unknown as { layoutShifts: number[] }).layoutShifts = shifts;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) shifts.push((entry as unknown as { value: number }).value);
  }).observe({ type: 'layout-shift', buffered: true });
}

/** The values of the page's layout shifts so far, in order. */
export const layoutShifts = (page: Page): Promise<number[]> =>
  page.evaluate(() => (window as unknown as { layoutShifts: number[] }).layoutShifts);
