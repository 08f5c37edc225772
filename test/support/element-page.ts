import { fixture, fixtureCleanup } from '@open-wc/testing';
import { vi } from 'vitest';
import { writeTimesInDigits } from '../../src/count-time.js';
import { disclosureFile } from '../../src/disclosure-on-demand.js';
import type { LiveVisitors } from '../../src/live-visitors.js';
import { type Environment, setEnvironment } from '../../src/realtime/environment.js';
import { FakeBrowser, type FakeTab, freshWebsiteId, useFakeClock } from './fake-browser.js';
import { FakeService } from './fake-service.js';

// The disclosure's file is in before any element test, as a browser's cache has it: fake time does
// not wait for a module to load, and each test's explanation is then there from its first render.
await disclosureFile.loaded();

/** What one element test works with: see `openElementPage`. */
export interface ElementPage {
  service: FakeService;
  browser: FakeBrowser;
  /** The tab whose environment new elements use. */
  tab: FakeTab;
  /** A website no other test has used, so nothing stored by another test is found. */
  websiteId: string;
  /** Puts back the environment from before: `closePage` takes it. */
  restoreEnvironment: () => void;
}

/**
 * A new page for one test: fake time, a fake service, and a browser whose first tab (with
 * `tabOverrides`) is the environment of the elements made from now on.
 */
export function openElementPage(tabOverrides: Partial<Environment> = {}): ElementPage {
  // biome-ignore lint/correctness/useHookAtTopLevel: `useFakeClock` is vitest's fake time, not a React hook.
  useFakeClock();
  const service = new FakeService();
  const browser = new FakeBrowser(service);
  const tab = browser.openTab(tabOverrides);
  return { service, browser, tab, websiteId: freshWebsiteId(), restoreEnvironment: setEnvironment(tab.env) };
}

/** Lets fake time pass (none by default) and waits for the element's render. */
export async function settle(el?: LiveVisitors, ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await el?.updateComplete;
}

/** `<live-visitors>` for `websiteId` against the fake service's origin, rendered. */
export async function mountWidget(websiteId: string, attributes = ''): Promise<LiveVisitors> {
  const host = await fixture<HTMLElement>(
    `<div><live-visitors website-id="${websiteId}" api-base="https://a.example" ${attributes}></live-visitors></div>`,
  );
  const el = host.querySelector('live-visitors')!;
  await settle(el);
  return el;
}

/** After each element test: remove the fixtures, let their last timers run, restore the environment and real time. */
export async function closePage(restoreEnvironment: () => void): Promise<void> {
  fixtureCleanup();
  // The next page starts with times in digits again: nobody has opened a disclosure there yet.
  writeTimesInDigits();
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
  restoreEnvironment();
  vi.useRealTimers();
}
