import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import '../src/define.js';
import type { LiveVisitorsImpressionDetail, LiveVisitorsUpdateDetail } from '../src/events.js';
import type { LiveVisitors } from '../src/live-visitors.js';
import { VisitorFeed } from '../src/realtime/feed.js';
import { closePage, mountWidget, openElementPage, settle } from './support/element-page.js';
import type { FakeBrowser, FakeTab } from './support/fake-browser.js';
import type { FakeService } from './support/fake-service.js';
import { languageLoaded } from './support/languages.js';

// Issue 32 §2: a relay whose source counts another window than the contract's 3 minutes says so in
// `windowMinutes`; the explanation, the element's properties, its events and the dataLayer say it too.

const MINUTE = 60_000;

let service: FakeService;
let browser: FakeBrowser;
let tab: FakeTab;
let websiteId: string;
let restoreEnvironment: () => void;

beforeAll(async () => {
  await languageLoaded('de');
  await import('../src/experiments.js');
});

beforeEach(() => {
  ({ service, browser, tab, websiteId, restoreEnvironment } = openElementPage());
});

afterEach(() => closePage(restoreEnvironment));

/** The relay's answer: the contract's report with `windowMinutes` set to `value`. */
const answerWithWindow = (value: unknown) => {
  service.reply = (request) => ({ body: { ...service.report(request), windowMinutes: value } });
};

const explanation = (el: LiveVisitors) => el.shadowRoot!.querySelector('[part="disclosure"]')?.textContent ?? null;
const sentence = (el: LiveVisitors) => el.shadowRoot!.querySelector('[part="text"]')?.textContent ?? null;

describe("a relay's window", () => {
  it('the explanation, windowMinutes and the update event say 5 minutes when the relay says so', async () => {
    answerWithWindow(5);
    const updates: LiveVisitorsUpdateDetail[] = [];
    const hear = (event: CustomEvent<LiveVisitorsUpdateDetail>) => updates.push(event.detail);
    document.addEventListener('live-visitors-update', hear);
    try {
      const el = await mountWidget(websiteId);
      expect(sentence(el)).toBe('23 people are browsing this shop right now');
      expect(explanation(el)).toMatch(/^Unique visitors on this whole site in the last 5 minutes · updated \d\d:\d\d$/);
      expect(el.windowMinutes).toBe(5);
      expect(updates.map(({ count, windowMinutes }) => ({ count, windowMinutes }))).toEqual([{ count: 23, windowMinutes: 5 }]);
    } finally {
      document.removeEventListener('live-visitors-update', hear);
    }
  });

  it("says the window in the page's language through Intl, with its plural", async () => {
    answerWithWindow(1);
    const host = document.createElement('div');
    host.lang = 'de';
    document.body.append(host);
    host.innerHTML = `<live-visitors website-id="${websiteId}" api-base="https://a.example"></live-visitors>`;
    const el = host.querySelector('live-visitors')!;
    await settle(el);
    await settle(el);
    expect(explanation(el)).toMatch(/^Eindeutige Besucher auf der gesamten Website in den letzten 1 Minute · aktualisiert um \d\d:\d\d$/);
    host.remove();
  });

  it.each([0, 61, 2.5, -5, '5', null, true, 1e9, Number.NaN])(
    'ignores windowMinutes %s (not a whole number from 1 to 60): the count shows, with the contract\u2019s 3',
    async (value) => {
      answerWithWindow(value);
      const el = await mountWidget(websiteId);
      expect([el.getAttribute('state'), el.count, el.windowMinutes]).toEqual(['live', 23, 3]);
      expect(explanation(el)).toContain('in the last 3 minutes');
    },
  );

  it('the page\u2019s own disclosure-text is left as written', async () => {
    answerWithWindow(5);
    const el = await mountWidget(websiteId, 'disclosure-text="Counted over 3 minutes, at {time}"');
    expect(explanation(el)).toMatch(/^Counted over 3 minutes, at \d\d:\d\d$/);
  });

  it('goes with the impression and its dataLayer entry', async () => {
    answerWithWindow(5);
    const dataLayer: unknown[] = [];
    vi.stubGlobal('dataLayer', dataLayer);
    const impressions: LiveVisitorsImpressionDetail[] = [];
    const hear = (event: CustomEvent<LiveVisitorsImpressionDetail>) => impressions.push(event.detail);
    document.addEventListener('live-visitors-impression', hear);
    try {
      const el = await mountWidget(websiteId);
      tab.setHalfVisible(el, true);
      await settle(el, 1000);
      expect(impressions).toEqual([{ count: 23, websiteId, variant: 'shown', windowMinutes: 5 }]);
      expect(dataLayer).toEqual([expect.objectContaining({ live_visitors_count: 23, live_visitors_window_minutes: 5 })]);
    } finally {
      document.removeEventListener('live-visitors-impression', hear);
    }
  });

  it('survives storage: a later page load shows the stored count with its window before asking', async () => {
    answerWithWindow(5);
    const first = await mountWidget(websiteId);
    expect(first.windowMinutes).toBe(5);
    first.remove();
    await settle();
    // A new page of the same browser a minute later, whose request hangs: what shows is the stored record.
    service.reply = () => 'hang';
    const pageTab = browser.openTab();
    restoreEnvironment();
    restoreEnvironment = (await import('../src/realtime/environment.js')).setEnvironment(pageTab.env);
    await settle(undefined, MINUTE / 2);
    const later = await mountWidget(websiteId);
    expect([later.count, later.windowMinutes]).toEqual([23, 5]);
    expect(explanation(later)).toContain('in the last 5 minutes');
  });

  it("reaches another tab through the shared record, with no request of that tab's own", async () => {
    const el = await mountWidget(websiteId);
    expect(el.windowMinutes).toBe(3);
    // Ten seconds later another tab of the same browser asks the relay, which now counts 5 minutes.
    await settle(el, 10_000);
    answerWithWindow(5);
    const otherTab = browser.openTab();
    const feed = new VisitorFeed({ apiBase: 'https://a.example', websiteId }, otherTab.env, () => {});
    const stop = feed.subscribe(() => {}, MINUTE);
    feed.refresh();
    await settle(el);
    const requests = service.requests.length;
    await settle(el);
    expect([el.windowMinutes, service.requests.length]).toEqual([5, requests]);
    expect(explanation(el)).toContain('in the last 5 minutes');
    stop();
  });
});
