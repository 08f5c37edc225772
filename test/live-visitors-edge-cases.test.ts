import { fixture } from '@open-wc/testing';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import '../src/define.js';
import type { LiveVisitorsUpdateDetail } from '../src/events.js';
import type { LiveVisitors } from '../src/live-visitors.js';
import { setEnvironment } from '../src/realtime/environment.js';
import { activeFeedCount } from '../src/realtime/feed.js';
import { closePage, openElementPage, settle } from './support/element-page.js';
import { type FakeTab, freshWebsiteId } from './support/fake-browser.js';
import type { FakeService } from './support/fake-service.js';
import { languageLoaded } from './support/languages.js';

// Loaded before the fake clock: the German file is a real dynamic import.
beforeAll(() => languageLoaded('de'));

const MINUTE = 60_000;
let service: FakeService;
let tab: FakeTab;
let websiteId: string;
let restore: () => void;
beforeEach(() => {
  ({ service, tab, websiteId, restoreEnvironment: restore } = openElementPage());
});
afterEach(() => closePage(restore));
async function widget(attributes = ''): Promise<LiveVisitors> {
  const host = await fixture<HTMLElement>(
    `<div><live-visitors website-id="${websiteId}" api-base="https://a.example" ${attributes}></live-visitors><p id="other"></p></div>`,
  );
  const el = host.querySelector('live-visitors')!;
  await settle(el);
  return el;
}

describe('edge cases', () => {
  it('a failed refresh does not fire live-visitors-update again', async () => {
    const updates: LiveVisitorsUpdateDetail[] = [];
    const on = (e: CustomEvent<LiveVisitorsUpdateDetail>) => updates.push(e.detail);
    document.addEventListener('live-visitors-update', on);
    try {
      const el = await widget();
      service.reply = () => ({ status: 500 });
      await settle(el, MINUTE);
      await settle(el, 3 * MINUTE);
      expect(el.getAttribute('state')).toBe('stale');
      expect(updates.map((u) => u.count)).toEqual([23]);
    } finally {
      document.removeEventListener('live-visitors-update', on);
    }
  });

  it('moving the only element in the DOM mid-request neither aborts nor resends', async () => {
    let aborted = 0;
    service.reply = () => 'hang';
    const origFetch = tab.env.fetch;
    restore();
    restore = setEnvironment({
      ...tab.env,
      fetch: (u, init) => {
        init.signal?.addEventListener('abort', () => aborted++);
        return origFetch(u, init);
      },
    });
    const el = await widget();
    expect(service.requests).toHaveLength(1);
    el.parentElement!.querySelector('#other')!.append(el); // a framework re-orders the DOM
    await settle(el);
    expect([aborted, service.requests.length]).toEqual([0, 1]);
    expect(service.requests).toHaveLength(1);
  });

  it('a max-age over 7 days keeps a count shown for 7 days, then switches on time', async () => {
    const el = await widget('max-age="3000000"'); // ~35 days: capped at 7
    service.reply = () => ({ status: 500 });
    await settle(el, 7 * 24 * 60 * MINUTE - MINUTE);
    expect([el.getAttribute('state'), el.count]).toEqual(['stale', 23]);
    await settle(el, MINUTE + 1000);
    expect([el.getAttribute('state'), el.count]).toEqual(['unavailable', null]);
  }, 30_000); // a week of fake time: some ten thousand timers, seconds on a busy machine

  it('interval="" (an empty CMS setting) means the default, not 15 s', async () => {
    await widget('interval=""');
    await settle(undefined, 10 * MINUTE - 1);
    expect(service.requests).toHaveLength(10);
  });
  it('marks English fallback text inside an Icelandic page (no texts of its own) as lang="en"', async () => {
    const host = await fixture<HTMLElement>(
      `<div lang="is"><live-visitors website-id="${websiteId}" api-base="https://a.example"></live-visitors></div>`,
    );
    const el = host.querySelector('live-visitors')!;
    await settle(el);
    expect(el.shadowRoot!.querySelector('[part="text"]')!.getAttribute('lang')).toBe('en');
  });

  it('inherits lang across the shadow root of another component', async () => {
    const outer = await fixture<HTMLElement>(`<div lang="de"><x-card></x-card></div>`);
    const root = outer.querySelector('x-card')!.attachShadow({ mode: 'open' });
    const el = document.createElement('live-visitors');
    el.setAttribute('website-id', websiteId);
    el.setAttribute('api-base', 'https://a.example');
    root.append(el);
    await settle(el);
    expect(el.shadowRoot!.querySelector('[part="text"]')!.textContent).toBe('23 Personen sehen sich gerade in diesem Shop um');
  });

  it('the native lang property sets the attribute and re-renders the text', async () => {
    const el = await widget();
    el.lang = 'de';
    await settle(el);
    expect(el.getAttribute('lang')).toBe('de');
    expect(el.shadowRoot!.querySelector('[part="text"]')!.textContent).toBe('23 Personen sehen sich gerade in diesem Shop um');
  });

  it('refresh() right after setAttribute asks with the new settings', async () => {
    const el = await widget();
    const other = freshWebsiteId();
    el.setAttribute('website-id', other);
    await el.refresh();
    await settle(el);
    expect(service.requests.map((request) => new URL(request.url).searchParams.get('websiteId'))).toEqual([websiteId, other]);
  });

  it('refresh() on a disconnected element leaves no feed behind', async () => {
    const el = await widget();
    el.remove();
    await settle();
    const before = activeFeedCount();
    await el.refresh();
    expect(activeFeedCount()).toBe(before);
  });
});
