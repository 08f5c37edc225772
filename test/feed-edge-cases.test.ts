import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FeedKey, type FeedSnapshot, VisitorFeed } from '../src/realtime/feed.js';
import { feedView } from '../src/view-state.js';
import { FakeBrowser, type FakeTab, freshWebsiteId, useFakeClock } from './support/fake-browser.js';
import { FakeService } from './support/fake-service.js';

const MINUTE = 60_000;
let service: FakeService;
let browser: FakeBrowser;
let key: FeedKey;

beforeEach(() => {
  useFakeClock();
  service = new FakeService();
  browser = new FakeBrowser(service);
  key = { apiBase: 'https://a.example', websiteId: freshWebsiteId(), token: 'tok' };
});

afterEach(() => {
  vi.useRealTimers();
});

const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);
function watch(tab: FakeTab, intervalMs = MINUTE) {
  const feed = new VisitorFeed(key, tab.env, () => {});
  const seen: FeedSnapshot[] = [];
  const unsubscribe = feed.subscribe((snapshot) => seen.push(snapshot), intervalMs);
  return {
    feed,
    latest: () => seen.at(-1)!,
    stop: async () => {
      unsubscribe();
      await Promise.resolve();
    },
  };
}

describe('edge cases', () => {
  it('coming back online after network errors refreshes at once, whatever the backoff', async () => {
    const tab = browser.openTab();
    watch(tab);
    await elapse(0);
    service.reply = () => 'network-error'; // the connection dropped before "offline" fired
    await elapse(MINUTE); // fails; then backoff 2, 4, 8 intervals…
    await elapse(4 * MINUTE);
    tab.setOnline(false);
    await elapse(MINUTE);
    service.reply = null;
    const before = service.requests.length;
    tab.setOnline(true);
    await elapse(1000);
    expect(service.requests.length).toBe(before + 1);
  });

  it('refresh() waits out a 429 Retry-After', async () => {
    const page = watch(browser.openTab());
    await elapse(0);
    service.reply = () => ({ status: 429, headers: { 'retry-after': '1800' } });
    await elapse(MINUTE);
    const before = service.requests.length;
    for (let i = 0; i < 5; i++) {
      page.feed.refresh();
      await elapse(1000);
    }
    expect(service.requests.length).toBe(before);
  });

  it('a 404 is not asked again on every page load, but after an hour', async () => {
    service.reply = () => ({ status: 404, body: { error: 'Website not found' } });
    for (let load = 0; load < 10; load++) {
      const p = watch(browser.openTab());
      await elapse(10_000);
      await p.stop();
    }
    expect(service.requests.length).toBe(1);
    await elapse(60 * MINUTE);
    watch(browser.openTab());
    await elapse(0);
    expect(service.requests.length).toBe(2);
  });

  // Issue 25, defect 6 (failed on 8a36914): the pause was judged only by the stored retryAt.
  it('a 404 pause stored while the clock ran a year ahead lasts at most an hour once the clock is right', async () => {
    const rightNow = Date.now();
    vi.setSystemTime(rightNow + 365 * 24 * 60 * MINUTE);
    service.reply = () => ({ status: 404, body: { error: 'Website not found' } });
    const wrongClock = watch(browser.openTab());
    await elapse(0);
    expect(wrongClock.latest().stopped).toBe(true);
    await wrongClock.stop();
    vi.setSystemTime(rightNow);
    service.reply = null;
    const fixed = watch(browser.openTab());
    await elapse(0);
    expect(service.requests).toHaveLength(2);
    expect(fixed.latest()).toMatchObject({ stopped: false, report: { currentVisitors: 23 } });
  });

  it('a 401 stops only its own page: a page load with the fixed token asks at once', async () => {
    service.reply = () => ({ status: 401, body: { error: 'Missing or invalid authorization header. Expected: Bearer <token>' } });
    const wrong = watch(browser.openTab());
    await elapse(0);
    expect(wrong.latest().stopped).toBe(true);
    await wrong.stop();
    service.reply = null;
    key = { ...key, token: 'the-right-token' };
    const fixed = watch(browser.openTab());
    await elapse(0);
    expect(service.requests).toHaveLength(2);
    expect(fixed.latest().report?.currentVisitors).toBe(23);
  });

  it('a tab hidden while it waited for the lock does not send', async () => {
    service.reply = () => 'hang';
    const a = watch(browser.openTab());
    await elapse(0); // A holds the lock, request hanging
    const tabB = browser.openTab();
    watch(tabB);
    await elapse(0); // B waits on the lock
    tabB.setVisible(false);
    service.reply = null;
    await a.stop(); // A's page closes: its request is aborted, nothing stored
    await elapse(0);
    expect(service.requests).toHaveLength(1); // B is hidden: must not send
  });

  it('a lock that rejects (SecurityError in an opaque-origin frame) falls back, and neither spins nor throws', async () => {
    const tab = browser.openTab({
      locks: () => ({ request: () => Promise.reject(new DOMException('denied', 'SecurityError')) }) as unknown as LockManager,
    });
    const errors: unknown[] = [];
    const handler = (e: unknown) => errors.push(e);
    process.on('unhandledRejection', handler);
    const page = watch(tab);
    try {
      await elapse(100);
    } finally {
      process.off('unhandledRejection', handler);
    }
    expect(errors).toEqual([]);
    expect(service.requests).toHaveLength(1);
    expect(page.latest().report?.currentVisitors).toBe(23);
  });

  it('a count fetched "in the future" (the clock went back 5 min) is not shown', async () => {
    const first = watch(browser.openTab());
    await elapse(0);
    await first.stop();
    vi.setSystemTime(Date.now() - 5 * MINUTE);
    service.reply = () => ({ status: 503 });
    const page = watch(browser.openTab());
    await elapse(0);
    const view = feedView(page.latest(), Date.now(), 10 * MINUTE, MINUTE);
    expect(view.report).toBeNull();
  });

  it('after the clock went back, a long-lived tab still takes the newer counts of other tabs', async () => {
    const tabA = browser.openTab();
    const a = watch(tabA);
    await elapse(0);
    vi.setSystemTime(Date.now() - 30 * MINUTE); // NTP correction
    const b = watch(browser.openTab());
    service.count = 77;
    await elapse(0);
    expect(b.latest().report?.currentVisitors).toBe(77);
    await elapse(20_000);
    expect(a.latest().report?.currentVisitors).toBe(77);
  });
});
