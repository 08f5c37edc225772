import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import rules from '../src/contract/rules.json' with { type: 'json' };
import { type FeedKey, type FeedSnapshot, VisitorFeed } from '../src/realtime/feed.js';
import { feedView } from '../src/view-state.js';
import { FakeBrowser, type FakeTab, freshWebsiteId, useFakeClock } from './support/fake-browser.js';
import { FakeService } from './support/fake-service.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const TOKEN = 'tok_SECRET_1234567890';

let service: FakeService;
let browser: FakeBrowser;
let key: FeedKey;
let start: number;

beforeEach(() => {
  useFakeClock();
  service = new FakeService();
  browser = new FakeBrowser(service);
  key = { apiBase: 'https://analytics.example', websiteId: freshWebsiteId(), token: TOKEN };
  start = Date.now();
});

afterEach(() => {
  vi.useRealTimers();
});

/** Subscribes `count` listeners in `tab`; returns the latest snapshot seen and the unsubscribers. */
function watch(tab: FakeTab, { count = 1, intervalMs = MINUTE } = {}) {
  const feed = new VisitorFeed(key, tab.env, () => {});
  const seen: FeedSnapshot[] = [];
  const unsubscribers = Array.from({ length: count }, () => feed.subscribe((snapshot) => seen.push(snapshot), intervalMs));
  return {
    feed,
    latest: () => seen.at(-1)!,
    stop: async () => {
      for (const unsubscribe of unsubscribers) unsubscribe();
      await Promise.resolve();
    },
  };
}

async function elapse(ms: number) {
  await vi.advanceTimersByTimeAsync(ms);
}

describe('one request per interval', () => {
  it.each([1, 5, 20])('%i subscribers on one page send one request a minute', async (count) => {
    const tab = browser.openTab();
    watch(tab, { count });
    await elapse(HOUR - 1);
    expect(service.requests).toHaveLength(60);
    expect(service.times(start)).toEqual(Array.from({ length: 60 }, (_, minute) => minute * 60));
  });

  it('uses the shortest interval asked for by any subscriber', async () => {
    const tab = browser.openTab();
    const feed = new VisitorFeed(key, tab.env, () => {});
    feed.subscribe(() => {}, 2 * MINUTE);
    feed.subscribe(() => {}, 30_000);
    await elapse(5 * MINUTE - 1);
    expect(service.requests).toHaveLength(10);
  });

  it('sends the token only as a bearer header, and the website id in the query', async () => {
    watch(browser.openTab());
    await elapse(0);
    const [request] = service.requests;
    expect(request!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(request!.url).toBe(`https://analytics.example/api/v1/realtime?websiteId=${key.websiteId}`);
  });

  it('sends no Authorization header without a token (same-origin relay)', async () => {
    key = { apiBase: 'https://shop.example', websiteId: freshWebsiteId() };
    watch(browser.openTab());
    await elapse(0);
    expect(service.requests[0]!.headers.has('authorization')).toBe(false);
  });
});

describe('persistence across page loads', () => {
  it('shows the stored count at once and sends no request within the interval', async () => {
    const firstLoad = watch(browser.openTab());
    await elapse(0);
    await firstLoad.stop();
    await elapse(20_000);

    service.count = 99;
    const secondLoad = watch(browser.openTab());
    expect(secondLoad.latest()).toMatchObject({ report: { currentVisitors: 23 }, settled: true });
    expect(service.requests).toHaveLength(1);

    // Due one interval after the stored fetch, not after this load.
    await elapse(40_000 - 1);
    expect(service.requests).toHaveLength(1);
    await elapse(1);
    expect(service.requests).toHaveLength(2);
    expect(secondLoad.latest().report?.currentVisitors).toBe(99);
  });

  it('ten page loads within an hour still send one request a minute', async () => {
    for (let load = 0; load < 10; load += 1) {
      const page = watch(browser.openTab());
      await elapse(6 * MINUTE - 1);
      await page.stop();
      await elapse(1);
    }
    expect(service.requests).toHaveLength(60);
  });

  it('never stores the token, not even inside a key', async () => {
    watch(browser.openTab());
    await elapse(0);
    expect(browser.storage.length).toBeGreaterThan(0);
    expect(browser.storedText()).not.toContain(TOKEN);
  });

  it.each([
    ['junk', '{not json'],
    [
      'a negative count',
      JSON.stringify({ report: { currentVisitors: -1, websiteId: 'X', timestamp: '2026-11-22T09:00:00.000Z' }, fetchedAt: 1 }),
    ],
    [
      'markup as count',
      JSON.stringify({
        report: { currentVisitors: '<img src=x onerror=alert(1)>', websiteId: 'X', timestamp: '2026-11-22T09:00:00.000Z' },
        fetchedAt: 1,
      }),
    ],
  ])('ignores %s found in storage and asks the service', async (_, stored) => {
    const tab = browser.openTab();
    const probe = new VisitorFeed(key, tab.env, () => {});
    probe.subscribe(() => {}, MINUTE)();
    await elapse(0);
    const storageKey = browser.storage.key(0)!;
    service.requests.length = 0;
    browser.storage.setItem(storageKey, stored.replaceAll('"X"', JSON.stringify(key.websiteId)));
    const page = watch(browser.openTab());
    expect(page.latest().report).toBeNull();
    await elapse(0);
    expect(service.requests).toHaveLength(1);
    expect(page.latest().report?.currentVisitors).toBe(23);
  });

  it('works from memory when storage is blocked', async () => {
    const tab = browser.openTab({
      storage: () => {
        throw new DOMException('blocked', 'SecurityError');
      },
    });
    const page = watch(tab);
    await elapse(0);
    expect(page.latest().report?.currentVisitors).toBe(23);
    await page.stop();
    const again = watch(tab);
    expect(again.latest().report?.currentVisitors).toBe(23);
    await elapse(MINUTE - 1);
    expect(service.requests).toHaveLength(1);
  });
});

describe('across tabs', () => {
  it('three tabs send one request a minute between them, and all show the newest count', async () => {
    const tabs = [watch(browser.openTab()), watch(browser.openTab()), watch(browser.openTab())];
    await elapse(HOUR - 1);
    expect(service.requests).toHaveLength(60);
    service.count = 57;
    await elapse(1);
    for (const tab of tabs) expect(tab.latest().report?.currentVisitors).toBe(57);
  });

  it('without Web Locks, tabs still share the stored answer: about one request a minute while requests are quick', async () => {
    const tabs = [0, 1, 2].map(() => watch(browser.openTab({ locks: () => undefined })));
    await elapse(HOUR - 1);
    expect(service.requests.length).toBeGreaterThanOrEqual(60);
    expect(service.requests.length).toBeLessThanOrEqual(62);
    for (const tab of tabs) expect(tab.latest().report).not.toBeNull();
  });

  it('tabs share the backoff: a failing service sees no more requests with three tabs than with one', async () => {
    service.reply = () => ({ status: 503, body: { error: 'down' } });
    for (let tab = 0; tab < 3; tab += 1) watch(browser.openTab());
    await elapse(HOUR);
    const withThreeTabs = service.requests.length;

    const alone = new FakeService();
    alone.reply = service.reply;
    const soloBrowser = new FakeBrowser(alone);
    key = { ...key, websiteId: freshWebsiteId() };
    const solo = new VisitorFeed(key, soloBrowser.openTab().env, () => {});
    solo.subscribe(() => {}, MINUTE);
    await elapse(HOUR);
    expect(withThreeTabs).toBeLessThanOrEqual(alone.requests.length + 1);
  });
});

describe('hidden pages and offline devices', () => {
  it('a hidden tab sends nothing, and refreshes at once when shown with an old count', async () => {
    const tab = browser.openTab();
    tab.visible = false;
    watch(tab);
    await elapse(HOUR);
    expect(service.requests).toHaveLength(0);
    tab.setVisible(true);
    await elapse(0);
    expect(service.requests).toHaveLength(1);
  });

  it('stops asking when hidden, and waits for the due time when shown with a fresh count', async () => {
    const tab = browser.openTab();
    watch(tab);
    await elapse(0);
    tab.setVisible(false);
    await elapse(10 * MINUTE);
    expect(service.requests).toHaveLength(1);
    tab.setVisible(true);
    await elapse(0);
    expect(service.requests).toHaveLength(2);
    tab.setVisible(false);
    await elapse(10_000);
    tab.setVisible(true);
    await elapse(0);
    expect(service.requests).toHaveLength(2);
    await elapse(50_000);
    expect(service.requests).toHaveLength(3);
  });

  it('sends nothing offline and refreshes on coming back online', async () => {
    const tab = browser.openTab();
    watch(tab);
    await elapse(0);
    tab.setOnline(false);
    await elapse(5 * MINUTE);
    expect(service.requests).toHaveLength(1);
    tab.setOnline(true);
    await elapse(0);
    expect(service.requests).toHaveLength(2);
  });
});

describe('failures', () => {
  it.each([
    ['server', () => ({ status: 500, body: { error: 'boom' } })],
    ['network', () => 'network-error' as const],
    ['invalid-response', () => ({ raw: '<html>oops</html>' })],
    ['timeout', () => 'hang' as const],
  ])('%s: backs off exponentially, capped at 10 minutes, then returns to the normal rhythm', async (kind, reply) => {
    const page = watch(browser.openTab());
    await elapse(0);
    service.reply = reply;
    await elapse(2 * HOUR);
    expect(page.latest().failure?.kind).toBe(kind);
    expect(page.latest().report?.currentVisitors).toBe(23);
    const times = service.times(start);
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    expect(gaps.length).toBeGreaterThan(4);
    for (const gap of gaps) expect(gap * 1000).toBeLessThanOrEqual(rules.maxBackoffMs + 10_000);
    for (const gap of gaps.slice(1)) expect(gap).toBeGreaterThanOrEqual(60);
    expect(gaps[3]!).toBeGreaterThan(gaps[0]!);
    expect(service.requests.length).toBeLessThan(2 * 6 + 10);

    service.reply = null;
    await elapse(rules.maxBackoffMs + 10_000);
    const recoveredAt = service.requests.length;
    expect(page.latest().failure).toBeNull();
    await elapse(10 * MINUTE);
    expect(service.requests.length - recoveredAt).toBe(10);
  });

  it('waits as long as Retry-After asks after a 429', async () => {
    watch(browser.openTab());
    await elapse(0);
    service.reply = () => ({ status: 429, headers: { 'retry-after': '900' }, body: { error: 'Rate limit exceeded' } });
    await elapse(MINUTE);
    expect(service.requests).toHaveLength(2);
    await elapse(900_000 - 1);
    expect(service.requests).toHaveLength(2);
    service.reply = null;
    await elapse(90_000 + 1);
    const [, rateLimitedAt, retriedAt] = service.times(start);
    // Retry-After plus at most 10% spread.
    expect(retriedAt! - rateLimitedAt!).toBeGreaterThanOrEqual(900);
    expect(retriedAt! - rateLimitedAt!).toBeLessThanOrEqual(990);
  });

  it('waits 5 minutes after a 429 without Retry-After', async () => {
    watch(browser.openTab());
    await elapse(0);
    service.reply = () => ({ status: 429, body: {} });
    await elapse(MINUTE);
    await elapse(5 * MINUTE - 1);
    expect(service.requests).toHaveLength(2);
    await elapse(31_000);
    expect(service.requests).toHaveLength(3);
  });

  it.each([
    [401, 'unauthorized', 'token'],
    [404, 'not-found', 'website-id'],
    [400, 'bad-request', 'website-id'],
  ])('%i stops polling and warns once, naming the %s… attribute', async (status, kind, attribute) => {
    const tab = browser.openTab();
    service.reply = () => ({ status, body: { error: 'nope' } });
    const page = watch(tab, { count: 3 });
    await elapse(HOUR);
    expect(service.requests).toHaveLength(1);
    expect(page.latest()).toMatchObject({ stopped: true, failure: { kind, status } });
    expect(tab.warnings).toHaveLength(1);
    expect(tab.warnings[0]).toContain(`${attribute} attribute`);

    service.reply = null;
    page.feed.refresh();
    await elapse(0);
    expect(page.latest()).toMatchObject({ stopped: false, failure: null, report: { currentVisitors: 23 } });
  });

  it.each([
    [404, 'not-found'],
    [400, 'bad-request'],
  ])('a page load that finds a stored %i stays quiet and still warns once', async (status, kind) => {
    service.reply = () => ({ status, body: { error: 'nope' } });
    const first = browser.openTab();
    watch(first);
    await elapse(MINUTE);
    const later = browser.openTab();
    const page = watch(later);
    await elapse(10 * MINUTE);
    expect(service.requests).toHaveLength(1);
    expect(page.latest()).toMatchObject({ stopped: true, failure: { kind, status } });
    expect(later.warnings).toEqual([expect.stringContaining('website-id attribute')]);
  });

  it('a failing service with a day-long interval is asked once, not in a loop', async () => {
    service.reply = () => ({ status: 500 });
    watch(browser.openTab(), { intervalMs: 24 * HOUR });
    await elapse(HOUR);
    expect(service.requests).toHaveLength(1);
  });

  it('keeps the last good report beside the failure', async () => {
    const page = watch(browser.openTab());
    await elapse(0);
    service.reply = () => ({ status: 502 });
    await elapse(MINUTE);
    expect(page.latest()).toMatchObject({ report: { currentVisitors: 23 }, failure: { kind: 'server', status: 502 } });
  });
});

describe('answers from a relay or cache', () => {
  it('counts max-age from the upstream fetch (Age), yet asks only once per interval', async () => {
    service.reply = (request) => ({ headers: { age: '300' }, body: service.report(request) });
    const page = watch(browser.openTab());
    await elapse(0);
    expect(page.latest().fetchedAt).toBe(start - 300_000);
    await elapse(10 * MINUTE - 1);
    expect(service.requests).toHaveLength(10);
  });

  it('takes an answer the relay serves past its max-age as stale, and keeps polling at the interval', async () => {
    service.reply = (request) => ({
      headers: { age: '90', 'cache-control': 'public, max-age=60, stale-if-error=510' },
      body: service.report(request),
    });
    const page = watch(browser.openTab());
    await elapse(0);
    expect(page.latest()).toMatchObject({ report: { currentVisitors: 23 }, failure: { kind: 'server' } });
    service.reply = (request) => ({ headers: { age: '5', 'cache-control': 'public, max-age=60' }, body: service.report(request) });
    await elapse(MINUTE);
    expect(service.requests).toHaveLength(2);
    expect(page.latest().failure).toBeNull();
  });

  it.each(['', '   '])('ignores an empty Age (%j)', async (age) => {
    service.reply = (request) => ({ headers: { age }, body: service.report(request) });
    const page = watch(browser.openTab());
    await elapse(0);
    expect(page.latest().fetchedAt).toBe(start);
  });
  // Issue 25, defect 1 (failed on 8a36914): an Age over a day was read as 0, so the count showed as new.
  // Issue 29 §5: an Age that is no plain number ('+90000', two header lines of it) was read as 0 as well; RFC 9111
  // §5.1 reads the first member of a list, and an age no one can trust never makes the answer younger.
  it.each([String(2 * 24 * 3600), String(3 * 24 * 3600), '9'.repeat(30), '90000, 90000', '+90000', '-5', 'junk', '1e3'])(
    'takes an Age of %s s (over the trust cap, or no age a cache can trust) as too old, never as new',
    async (age) => {
      service.reply = (request) => ({ headers: { age, 'cache-control': 'public, max-age=60' }, body: service.report(request) });
      const page = watch(browser.openTab());
      await elapse(0);
      expect(page.latest()).toMatchObject({ report: null, fetchedAt: null, failure: { kind: 'server' } });
      expect(feedView(page.latest(), Date.now(), 7 * 24 * HOUR, MINUTE)).toMatchObject({ state: 'unavailable', report: null });
    },
  );

  it('keeps the last good count, as stale, when the next answer is over the trust cap', async () => {
    const page = watch(browser.openTab());
    await elapse(0);
    service.reply = (request) => ({ headers: { age: String(2 * 24 * 3600) }, body: service.report(request) });
    await elapse(MINUTE);
    expect(page.latest()).toMatchObject({ report: { currentVisitors: 23 }, fetchedAt: start, failure: { kind: 'server' } });
    expect(feedView(page.latest(), Date.now(), 10 * MINUTE, MINUTE).state).toBe('stale');
  });
});

describe('clocks', () => {
  it('judges freshness by the device time of fetch, never by the service timestamp', async () => {
    service.reply = (request) => ({ body: { ...service.report(request), timestamp: '2001-01-01T00:00:00.000Z' } });
    const page = watch(browser.openTab());
    await elapse(0);
    expect(page.latest().report?.timestamp).toBe('2001-01-01T00:00:00.000Z');
    await elapse(MINUTE - 1);
    expect(service.requests).toHaveLength(1);
  });

  it('asks again when a stored fetch time lies in the future (the clock went back)', async () => {
    const first = watch(browser.openTab());
    await elapse(0);
    await first.stop();
    vi.setSystemTime(Date.now() - 3 * HOUR);
    watch(browser.openTab());
    await elapse(0);
    expect(service.requests).toHaveLength(2);
  });
});

describe('lifecycle', () => {
  it('the last unsubscribe stops timers, listeners and the request under way', async () => {
    const tab = browser.openTab();
    service.reply = () => 'hang';
    const page = watch(tab, { count: 3 });
    await elapse(0);
    expect(tab.listenerCount()).toBe(3);
    await page.stop();
    await elapse(0);
    expect(tab.listenerCount()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a subscriber leaving and another arriving in the same task does not restart the feed', async () => {
    const tab = browser.openTab();
    const feed = new VisitorFeed(key, tab.env, () => {});
    const leave = feed.subscribe(() => {}, MINUTE);
    await elapse(0);
    leave();
    feed.subscribe(() => {}, MINUTE);
    await elapse(MINUTE - 1);
    expect(service.requests).toHaveLength(1);
    expect(tab.listenerCount()).toBe(3);
  });

  it('drops the late answer of a request from before a stop', async () => {
    // No lock or storage, so the old request (which ignores its abort signal) blocks nothing.
    const tab = browser.openTab({ locks: () => undefined, storage: () => undefined });
    let release: (() => void) | undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const fetch = tab.env.fetch;
    let calls = 0;
    tab.env.fetch = async (input, init) => {
      calls += 1;
      if (calls === 1) {
        await slow;
        service.count = 1000;
      }
      return fetch(input, { ...init, signal: undefined });
    };
    const page = watch(tab);
    await elapse(0);
    await page.stop();
    const seen: FeedSnapshot[] = [];
    service.count = 5;
    page.feed.subscribe((snapshot) => seen.push(snapshot), MINUTE);
    await elapse(0);
    expect(seen.at(-1)?.report?.currentVisitors).toBe(5);
    release!();
    await elapse(0);
    expect(calls).toBe(2);
    expect(seen.at(-1)?.report?.currentVisitors).toBe(5);
    // Nor was it saved behind the subscribers' backs.
    const reader = new VisitorFeed(key, tab.env, () => {});
    reader.subscribe((snapshot) => seen.push(snapshot), MINUTE);
    expect(seen.at(-1)?.report?.currentVisitors).toBe(5);
  });

  it('thousands of subscribe/unsubscribe cycles leave nothing behind', async () => {
    const tab = browser.openTab();
    const feed = new VisitorFeed(key, tab.env, () => {});
    for (let cycle = 0; cycle < 5000; cycle += 1) {
      const unsubscribe = feed.subscribe(() => {}, MINUTE);
      unsubscribe();
      if (cycle % 100 === 0) await Promise.resolve();
    }
    await elapse(0);
    expect(tab.listenerCount()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(service.requests.length).toBeLessThanOrEqual(1);
  });
});
