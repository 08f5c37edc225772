import { fixture } from '@open-wc/testing';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import '../src/define.js';
import type { LiveVisitorsImpressionEvent } from '../src/events.js';
import type { LiveVisitors } from '../src/live-visitors.js';
import { closePage, openElementPage, settle } from './support/element-page.js';
import type { FakeTab } from './support/fake-browser.js';
import type { FakeService } from './support/fake-service.js';

const MINUTE = 60_000;

let service: FakeService;
let tab: FakeTab;
let websiteId: string;
let restoreEnvironment: () => void;
/** Every impression the document heard, bubbling out of the shadow roots. */
let impressions: LiveVisitorsImpressionEvent[];
const hear = (event: LiveVisitorsImpressionEvent) => impressions.push(event);

// The element loads the experiments file when it first shows a count. Loading a module takes real
// time, which fake time does not wait for: the file is in before the first test, as a browser's
// cache has it, so each test's seconds are the watch's own.
beforeAll(() => import('../src/experiments.js'));

beforeEach(() => {
  ({ service, tab, websiteId, restoreEnvironment } = openElementPage());
  impressions = [];
  document.addEventListener('live-visitors-impression', hear);
});

afterEach(async () => {
  document.removeEventListener('live-visitors-impression', hear);
  await closePage(restoreEnvironment);
});

async function widget(attributes = ''): Promise<LiveVisitors> {
  const host = await fixture<HTMLElement>(
    `<div><section><live-visitors website-id="${websiteId}" api-base="https://a.example" ${attributes}></live-visitors></section><aside></aside></div>`,
  );
  const el = host.querySelector('live-visitors')!;
  await settle(el);
  return el;
}

/** Scrolls the element half into view (or out) at the current fake time. */
async function halfVisible(el: LiveVisitors, visible = true) {
  tab.setHalfVisible(el, visible);
  await settle(el);
}

describe('live-visitors-impression', () => {
  it('fires once, bubbling and composed, after one second half visible with a count', async () => {
    const el = await widget();
    await settle(el, 5000);
    expect(impressions).toHaveLength(0);
    await halfVisible(el);
    await settle(el, 999);
    expect(impressions).toHaveLength(0);
    await settle(el, 1);
    expect(impressions.map(({ detail, bubbles, composed }) => ({ detail, bubbles, composed }))).toEqual([
      { detail: { count: 23, websiteId, variant: 'shown', windowMinutes: 3 }, bubbles: true, composed: true },
    ]);
  });

  it('counts a whole second again when the element leaves view before it is up', async () => {
    const el = await widget();
    await halfVisible(el);
    await settle(el, 600);
    await halfVisible(el, false);
    await settle(el, 2000);
    await halfVisible(el);
    await settle(el, 999);
    expect(impressions).toHaveLength(0);
    await settle(el, 1);
    expect(impressions).toHaveLength(1);
  });

  it('waits while the page is hidden, and counts from when it is shown', async () => {
    const el = await widget();
    tab.setVisible(false);
    await halfVisible(el);
    await settle(el, 5000);
    expect(impressions).toHaveLength(0);
    tab.setVisible(true);
    await settle(el, 600);
    tab.setVisible(false);
    await settle(el, 600);
    tab.setVisible(true);
    await settle(el, 999);
    expect(impressions).toHaveLength(0);
    await settle(el, 1);
    expect(impressions).toHaveLength(1);
  });

  it('waits while the count is below min, and counts from when a count shows', async () => {
    service.count = 3;
    const el = await widget('min="5"');
    await halfVisible(el);
    await settle(el, 30_000);
    expect(impressions).toHaveLength(0);
    service.count = 6;
    await settle(el, MINUTE - 30_000);
    expect(el.shadowRoot!.querySelector('[part="count"]')!.textContent).toBe('6');
    await settle(el, 999);
    expect(impressions).toHaveLength(0);
    await settle(el, 1);
    expect(impressions.map((event) => event.detail.count)).toEqual([6]);
  });

  it('does not fire while the fallback shows for lack of a count', async () => {
    service.reply = () => 'hang';
    const el = await widget();
    await halfVisible(el);
    await settle(el, 5000);
    expect([el.getAttribute('state'), impressions.length]).toEqual(['loading', 0]);
  });

  it('stops the clock when the count goes away within the second', async () => {
    const el = await widget();
    await halfVisible(el);
    await settle(el, 500);
    el.min = 30;
    await settle(el, 5000);
    expect(impressions).toHaveLength(0);
  });

  it('keeps one clock through re-renders within the second', async () => {
    const el = await widget();
    await halfVisible(el);
    await settle(el, 500);
    el.setAttribute('text', '{count} shoppers here');
    await settle(el, 500);
    expect(impressions).toHaveLength(1);
    await settle(el, 5000);
    expect(impressions).toHaveLength(1);
  });

  it('never fires twice: not after DOM moves, re-renders, the page hidden and shown, new reports', async () => {
    const el = await widget();
    tab.setHalfVisible('all', true);
    await settle(el, 1000);
    expect(impressions).toHaveLength(1);
    for (const parent of ['aside', 'section']) {
      el.closest('div')!.querySelector(parent)!.append(el);
      await settle(el, 2000);
    }
    el.setAttribute('text', '{count} shoppers here');
    await settle(el, 2000);
    tab.setVisible(false);
    await settle(el, 2000);
    tab.setVisible(true);
    service.count = 40;
    await settle(el, 3 * MINUTE);
    expect(el.shadowRoot!.querySelector('[part="text"]')!.textContent).toBe('40 shoppers here');
    expect(impressions).toHaveLength(1);
  });

  it('fires once for each element', async () => {
    const host = await fixture<HTMLElement>(
      `<div>${`<live-visitors website-id="${websiteId}" api-base="https://a.example"></live-visitors>`.repeat(3)}</div>`,
    );
    tab.setHalfVisible('all', true);
    await settle(undefined, 1000);
    expect(impressions.map((event) => event.target)).toEqual([...host.querySelectorAll('live-visitors')]);
  });
});

describe('watching for an impression', () => {
  it('ends once it has fired', async () => {
    const el = await widget();
    expect(tab.halfVisibleObserverCount()).toBe(1);
    const listeners = tab.listenerCount();
    await halfVisible(el);
    await settle(el, 1000);
    expect(impressions).toHaveLength(1);
    // The page-visibility listener goes with the observer.
    expect([tab.halfVisibleObserverCount(), tab.listenerCount()]).toEqual([0, listeners - 1]);
    // A DOM move does not start watching again.
    el.closest('div')!.querySelector('aside')!.append(el);
    await settle(el);
    expect([tab.halfVisibleObserverCount(), tab.listenerCount()]).toEqual([0, listeners - 1]);
  });

  it('ends when the element is removed, and a removed element never fires', async () => {
    const el = await widget();
    await halfVisible(el);
    await settle(el, 500);
    el.remove();
    await settle(el, 5000);
    expect([tab.halfVisibleObserverCount(), tab.listenerCount(), impressions.length]).toEqual([0, 0, 0]);
  });
});

describe('the dataLayer push', () => {
  async function seenWidget() {
    const el = await widget();
    await halfVisible(el);
    await settle(el, 1000);
    expect(impressions).toHaveLength(1);
  }

  it('goes to an array dataLayer (Google Tag Manager), after what was there', async () => {
    const dataLayer: unknown[] = [{ event: 'gtm.js' }];
    vi.stubGlobal('dataLayer', dataLayer);
    await seenWidget();
    expect(dataLayer).toEqual([
      { event: 'gtm.js' },
      {
        event: 'live_visitors_impression',
        live_visitors_variant: 'shown',
        live_visitors_count: 23,
        live_visitors_website: websiteId,
        live_visitors_window_minutes: 3,
      },
    ]);
  });

  it('is left out without a dataLayer', async () => {
    await seenWidget();
    expect('dataLayer' in globalThis).toBe(false);
  });

  it('is left out when dataLayer is not an array', async () => {
    const dataLayer = { push: vi.fn() };
    vi.stubGlobal('dataLayer', dataLayer);
    await seenWidget();
    expect(dataLayer.push).not.toHaveBeenCalled();
  });
});
