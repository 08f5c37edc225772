import { fixture, fixtureCleanup } from '@open-wc/testing';
import { vi } from 'vitest';
import type { LiveVisitors } from '../../src/live-visitors.js';

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
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
  restoreEnvironment();
  vi.useRealTimers();
}
