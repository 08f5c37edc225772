import type { WebsiteConfig } from './config.js';
import { VisitorWindow } from './visitor-window.js';

/** The visitor windows of all configured websites: where pageviews go in and counts come out. */
export class PageviewStore {
  readonly #windows = new Map<string, VisitorWindow>();

  constructor(websites: readonly WebsiteConfig[], maxVisitorsPerWebsite: number) {
    for (const website of websites) {
      this.#windows.set(website.id, new VisitorWindow({ maxVisitors: maxVisitorsPerWebsite }));
    }
  }

  record(websiteId: string, visitorId: string, atMs: number, nowMs: number): void {
    this.#windowOf(websiteId).record(visitorId, atMs, nowMs);
  }

  currentVisitors(websiteId: string, nowMs: number): number {
    return this.#windowOf(websiteId).count(nowMs);
  }

  forget(websiteId: string, visitorId: string): void {
    this.#windowOf(websiteId).forget(visitorId);
  }

  trackedVisitors(websiteId: string): number {
    return this.#windowOf(websiteId).trackedVisitors;
  }

  clear(): void {
    for (const window of this.#windows.values()) window.clear();
  }

  #windowOf(websiteId: string): VisitorWindow {
    const window = this.#windows.get(websiteId);
    // Callers check the website first; reaching this is a bug in the emulator, not bad input.
    if (!window) throw new RangeError(`Unknown website "${websiteId}"`);
    return window;
  }
}
