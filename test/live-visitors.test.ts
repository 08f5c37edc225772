import { expect as chaiExpect, fixture, html } from '@open-wc/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import '../src/define.js';
import type { LiveVisitorsErrorDetail, LiveVisitorsUpdateDetail } from '../src/events.js';
import type { LiveVisitors } from '../src/live-visitors.js';
import { activeFeedCount } from '../src/realtime/feed.js';
import { closePage, mountWidget, openElementPage, settle } from './support/element-page.js';
import { type FakeTab, freshWebsiteId } from './support/fake-browser.js';
import type { FakeService } from './support/fake-service.js';
import { languageLoaded } from './support/languages.js';

const MINUTE = 60_000;

let service: FakeService;
let tab: FakeTab;
let websiteId: string;
let restoreEnvironment: () => void;

beforeEach(() => {
  ({ service, tab, websiteId, restoreEnvironment } = openElementPage());
});

afterEach(() => closePage(restoreEnvironment));

const widget = (attributes = '', id = websiteId) => mountWidget(id, attributes);

const shownText = (el: LiveVisitors) => el.shadowRoot!.querySelector('[part="text"]')?.textContent ?? null;
const showsFallback = (el: LiveVisitors) => el.shadowRoot!.querySelector('slot[name="fallback"]') !== null;

describe('rendering a count', () => {
  it('shows the built-in sentence with the number emphasised, and is live', async () => {
    const el = await widget();
    expect(shownText(el)).toBe('23 people are browsing this shop right now');
    expect(el.shadowRoot!.querySelector('[part="count"]')!.textContent).toBe('23');
    expect(el.getAttribute('state')).toBe('live');
    expect(el.count).toBe(23);
    expect(el.updatedAt).toEqual(new Date(Date.now()));
  });

  it('keeps the live dot decorative and announces nothing on its own', async () => {
    const el = await widget();
    const indicator = el.shadowRoot!.querySelector('[part="indicator"]')!;
    expect(indicator.getAttribute('aria-hidden')).toBe('true');
    expect(indicator.textContent).toBe('');
    expect(el.shadowRoot!.querySelector('[aria-live], [role="status"], [role="alert"]')).toBeNull();
  });

  it('uses the singular form for one visitor', async () => {
    service.count = 1;
    const el = await widget();
    expect(shownText(el)).toBe('1 person is browsing this shop right now');
  });

  it.each([
    ['de', 1234, '1.234 Personen sehen sich gerade in diesem Shop um'],
    ['pl', 22, '22 osoby przeglądają teraz ten sklep'],
    ['pl', 25, '25 osób przegląda teraz ten sklep'],
    ['fr', 1, '1 personne visite cette boutique en ce moment'],
  ])('speaks the inherited language %s (%i)', async (lang, count, text) => {
    service.count = count;
    const host = await fixture<HTMLElement>(
      `<section lang="${lang}"><p><live-visitors website-id="${websiteId}" api-base="https://a.example"></live-visitors></p></section>`,
    );
    const el = host.querySelector('live-visitors')!;
    await languageLoaded(lang);
    await settle(el);
    expect(shownText(el)).toBe(text);
  });

  it('prefers its own lang to its ancestors\u2019', async () => {
    const host = await fixture<HTMLElement>(
      `<div lang="de"><live-visitors lang="es" website-id="${websiteId}" api-base="https://a.example"></live-visitors></div>`,
    );
    const el = host.querySelector('live-visitors')!;
    await languageLoaded('es');
    await settle(el);
    expect(shownText(el)).toBe('23 personas están visitando esta tienda ahora mismo');
  });

  it('uses custom templates per plural form', async () => {
    const el = await widget('text="🔥 {count} shoppers here" text-one="🔥 {count} shopper here"');
    expect(shownText(el)).toBe('🔥 23 shoppers here');
    service.count = 1;
    el.refresh();
    await settle(el);
    expect(shownText(el)).toBe('🔥 1 shopper here');
  });

  it.each(['<img src=x onerror="window.hacked=1">{count}', '{count}<script>window.hacked=1</script>', '<b>{count}</b> &amp; more'])(
    'renders template %s as text, never as markup',
    async (template) => {
      const el = await widget();
      el.text = template;
      await el.updateComplete;
      const text = el.shadowRoot!.querySelector('[part="text"]')!;
      expect(text.querySelector('img, script, b')).toBeNull();
      expect(text.textContent).toBe(template.replace('{count}', '23'));
    },
  );
});

describe('the shadow DOM', () => {
  // Where a browser cannot adopt constructed stylesheets, Lit appends <style> elements to the shadow root.
  it('moves only its own nodes, so style elements Lit put beside them survive every switch', async () => {
    const el = await widget('min="20"');
    const style = el.shadowRoot!.appendChild(document.createElement('style'));
    el.min = 30;
    await settle(el);
    expect(showsFallback(el)).toBe(true);
    el.min = 20;
    await settle(el);
    expect(shownText(el)).toBe('23 people are browsing this shop right now');
    expect(style.parentNode).toBe(el.shadowRoot);
    expect(el.shadowRoot!.querySelectorAll('[part="base"]')).toHaveLength(1);
    expect(showsFallback(el)).toBe(false);
  });

  it('leaves the DOM alone when a poll brings the same count', async () => {
    const el = await widget('disclosure="off"');
    const mutations: MutationRecord[] = [];
    const observer = new MutationObserver((records) => mutations.push(...records));
    observer.observe(el.shadowRoot!, { subtree: true, childList: true, characterData: true, attributes: true });
    await settle(el, MINUTE);
    expect(service.requests).toHaveLength(2);
    await Promise.resolve();
    expect(mutations).toEqual([]);
    service.count = 24;
    await settle(el, MINUTE);
    await Promise.resolve();
    expect(mutations.length).toBeGreaterThan(0);
    expect(shownText(el)).toContain('24');
    observer.disconnect();
  });
});

describe('what shows when there is no count', () => {
  it('shows the fallback slot while loading without a cached count', async () => {
    service.reply = () => 'hang';
    const host = await fixture<HTMLElement>(
      `<div><live-visitors website-id="${websiteId}" api-base="https://a.example"><span slot="fallback">Limited stock</span></live-visitors></div>`,
    );
    const el = host.querySelector('live-visitors')!;
    await settle(el);
    expect(el.getAttribute('state')).toBe('loading');
    expect(showsFallback(el)).toBe(true);
    expect(el.count).toBeNull();
  });

  it.each([
    [0, 1],
    [3, 5],
  ])('never shows a count of %i below min=%i', async (count, min) => {
    service.count = count;
    const el = await widget(`min="${min}"`);
    expect(showsFallback(el)).toBe(true);
    expect(shownText(el)).toBeNull();
    expect(el.count).toBe(count);
  });

  it('refuses min="0": "0 people" never appears', async () => {
    service.count = 0;
    const el = await widget('min="0"');
    expect(shownText(el)).toBeNull();
  });

  it('is unavailable, warns and fires a config error without a website-id', async () => {
    const errors: LiveVisitorsErrorDetail[] = [];
    document.addEventListener('live-visitors-error', (event) => errors.push(event.detail), { once: true });
    const el = await fixture<LiveVisitors>(html`<live-visitors api-base="https://a.example"></live-visitors>`);
    await settle(el);
    expect(el.getAttribute('state')).toBe('unavailable');
    expect(errors).toEqual([expect.objectContaining({ kind: 'config', status: null })]);
    expect(errors[0]!.message).toContain('website-id');
    expect(tab.warnings.join()).toContain('website-id');
    expect(service.requests).toHaveLength(0);
  });

  it('is unavailable after a 401, with a warning naming the token attribute', async () => {
    service.reply = () => ({ status: 401, body: { error: 'Missing or invalid authorization header. Expected: Bearer <token>' } });
    const el = await widget('token="wrong"');
    expect(el.getAttribute('state')).toBe('unavailable');
    expect(tab.warnings).toHaveLength(1);
    expect(tab.warnings[0]).toContain('token attribute');
  });
});

describe('failures over time', () => {
  it('keeps the last count as stale while refreshes fail, then shows the fallback at max-age, on time', async () => {
    const el = await widget('max-age="300"');
    const fetchedAt = Date.now();
    service.reply = () => ({ status: 503, raw: '<html>down</html>', headers: { 'content-type': 'text/html' } });
    await settle(el, MINUTE);
    expect(el.getAttribute('state')).toBe('stale');
    expect(shownText(el)).toBe('23 people are browsing this shop right now');

    await settle(el, fetchedAt + 300_000 - Date.now());
    expect(el.getAttribute('state')).toBe('stale');
    await settle(el, 2);
    expect(el.getAttribute('state')).toBe('unavailable');
    expect(showsFallback(el)).toBe(true);
    expect(el.count).toBeNull();
  });

  it('a max-age raised while stale moves the switch to unavailable with it', async () => {
    const el = await widget('max-age="300"');
    const fetchedAt = Date.now();
    service.reply = () => ({ status: 500 });
    await settle(el, MINUTE);
    // Hidden: no more polls, so only the element's own timer can make the switch.
    tab.setVisible(false);
    el.maxAge = 900;
    await settle(el);
    await settle(el, fetchedAt + 300_000 + 10 - Date.now());
    expect(el.getAttribute('state')).toBe('stale');
    await settle(el, fetchedAt + 900_000 + 2 - Date.now());
    expect(el.getAttribute('state')).toBe('unavailable');
  });

  it('turns stale when offline keeps it from refreshing, and live again once back online', async () => {
    const el = await widget();
    tab.setOnline(false);
    await settle(el, MINUTE + 10_000);
    expect(el.getAttribute('state')).toBe('live');
    await settle(el, 2);
    expect(el.getAttribute('state')).toBe('stale');
    expect(shownText(el)).toContain('23');
    tab.setOnline(true);
    await settle(el);
    expect(el.getAttribute('state')).toBe('live');
    expect(service.requests).toHaveLength(2);
  });

  it('recovers to live when the service answers again', async () => {
    const el = await widget();
    service.reply = () => 'network-error';
    await settle(el, MINUTE);
    expect(el.getAttribute('state')).toBe('stale');
    service.reply = null;
    service.count = 31;
    await settle(el, 10 * MINUTE);
    expect(el.getAttribute('state')).toBe('live');
    expect(shownText(el)).toContain('31');
  });
});

describe('events', () => {
  it('fires a bubbling, composed update event for each new good report', async () => {
    const updates: Array<{ detail: LiveVisitorsUpdateDetail; bubbles: boolean; composed: boolean }> = [];
    const record = (event: CustomEvent<LiveVisitorsUpdateDetail>) =>
      updates.push({ detail: event.detail, bubbles: event.bubbles, composed: event.composed });
    document.addEventListener('live-visitors-update', record);
    try {
      const el = await widget();
      service.count = 24;
      await settle(el, MINUTE);
      expect(updates.map(({ detail }) => detail.count)).toEqual([23, 24]);
      expect(updates[0]).toEqual({
        detail: { count: 23, websiteId, timestamp: expect.any(String), windowMinutes: 3 },
        bubbles: true,
        composed: true,
      });
    } finally {
      document.removeEventListener('live-visitors-update', record);
    }
  });

  it('fires an error event with kind, status and message', async () => {
    const el = await widget();
    const errors: LiveVisitorsErrorDetail[] = [];
    el.addEventListener('live-visitors-error', (event) => errors.push(event.detail));
    service.reply = () => ({ status: 500, body: { error: 'boom' } });
    await settle(el, MINUTE);
    expect(errors).toEqual([{ kind: 'server', status: 500, message: expect.stringContaining('boom') }]);
  });
});

describe('events once per report and per attempt', () => {
  function collect(el: LiveVisitors) {
    const seen: { updates: number[]; errors: LiveVisitorsErrorDetail[] } = { updates: [], errors: [] };
    el.addEventListener('live-visitors-update', (event) => seen.updates.push(event.detail.count));
    el.addEventListener('live-visitors-error', (event) => seen.errors.push(event.detail));
    return seen;
  }

  it('a DOM move keeps the feed and fires nothing new, also after a failure', async () => {
    const host = await fixture<HTMLElement>(`<div><section></section><aside></aside></div>`);
    const el = document.createElement('live-visitors');
    const seen = collect(el);
    el.setAttribute('website-id', websiteId);
    el.setAttribute('api-base', 'https://a.example');
    host.querySelector('section')!.append(el);
    await settle(el);
    service.reply = () => ({ status: 503 });
    await settle(el, 2 * MINUTE);
    expect([seen.updates, seen.errors.map((error) => error.kind)]).toEqual([[23], ['server']]);
    for (const parent of ['aside', 'section', 'aside']) {
      host.querySelector(parent)!.append(el);
      await settle(el);
    }
    expect([seen.updates, seen.errors.length, service.requests.length]).toEqual([[23], 1, 2]);
    expect(el.getAttribute('state')).toBe('stale');
  });

  it('a 401 fires one unauthorized error per failed attempt, on the first request and after a refresh', async () => {
    service.reply = () => ({ status: 401, body: { error: 'Missing or invalid authorization header. Expected: Bearer <token>' } });
    const el = document.createElement('live-visitors');
    const seen = collect(el);
    el.setAttribute('website-id', websiteId);
    el.setAttribute('api-base', 'https://a.example');
    el.setAttribute('token', 'wrong');
    document.body.append(el);
    await settle(el);
    expect(seen.errors).toEqual([{ kind: 'unauthorized', status: 401, message: expect.stringContaining('token attribute') }]);
    await settle(el, 5 * MINUTE);
    expect([seen.errors.length, service.requests.length]).toEqual([1, 1]);
    await el.refresh();
    await settle(el);
    expect([seen.errors.length, service.requests.length, tab.warnings.length]).toEqual([2, 2, 1]);
    el.remove();
  });

  it('a 401 after a good report fires its error once, and the count gives way to the fallback', async () => {
    const el = await widget('token="rotated"');
    const seen = collect(el);
    service.reply = () => ({ status: 401 });
    await settle(el, MINUTE);
    expect(seen.errors.map((error) => [error.kind, error.status])).toEqual([['unauthorized', 401]]);
    expect([el.getAttribute('state'), el.count, showsFallback(el)]).toEqual(['unavailable', null, true]);
  });

  it('count, updatedAt and state read the one view the shadow DOM shows', async () => {
    const el = await widget();
    service.reply = () => 'hang';
    // The clock passes max-age before the element's timer has run: nothing may show one view while reading another.
    vi.setSystemTime(Date.now() + 11 * MINUTE);
    expect([el.count, el.updatedAt === null, el.getAttribute('state'), shownText(el)?.startsWith('23')]).toEqual([23, false, 'live', true]);
    // The next update (here asked for by hand; normally the expiry timer asks) moves all of them at once.
    el.requestUpdate();
    await el.updateComplete;
    expect([el.count, el.updatedAt, el.getAttribute('state'), showsFallback(el)]).toEqual([null, null, 'unavailable', true]);
  });
});

describe('sharing and caching', () => {
  it('twenty elements of one website send one request per interval', async () => {
    const ids = Array.from({ length: 20 }, () => `<live-visitors website-id="${websiteId}" api-base="https://a.example"></live-visitors>`);
    const host = await fixture<HTMLElement>(`<div>${ids.join('')}</div>`);
    await settle(undefined, 10 * MINUTE - 1);
    expect(service.requests).toHaveLength(10);
    for (const el of host.querySelectorAll('live-visitors')) expect(el.count).toBe(23);
  });

  it('with a cached count, the first render already shows it (no request, no layout jump)', async () => {
    const first = await widget();
    first.remove();
    await settle();
    service.reply = () => 'hang';
    const el = document.createElement('live-visitors');
    el.setAttribute('website-id', websiteId);
    el.setAttribute('api-base', 'https://a.example');
    document.body.append(el);
    await el.updateComplete;
    expect(shownText(el)).toBe('23 people are browsing this shop right now');
    expect(el.getAttribute('state')).toBe('live');
    expect(service.requests).toHaveLength(1);
    el.remove();
  });

  it('changing website-id moves the element to the other website\u2019s feed', async () => {
    const el = await widget();
    const other = freshWebsiteId();
    el.websiteId = other;
    await settle(el);
    expect(service.requests.map((request) => new URL(request.url).searchParams.get('websiteId'))).toEqual([websiteId, other]);
    expect(activeFeedCount()).toBe(1);
  });

  it('removing every element stops timers and listeners, over thousands of cycles', async () => {
    const feedsBefore = activeFeedCount();
    const container = document.createElement('div');
    document.body.append(container);
    for (let cycle = 0; cycle < 2000; cycle += 1) {
      const el = document.createElement('live-visitors');
      el.setAttribute('website-id', websiteId);
      el.setAttribute('api-base', 'https://a.example');
      container.append(el);
      await el.updateComplete;
      el.remove();
    }
    await settle();
    container.remove();
    expect(activeFeedCount()).toBe(feedsBefore);
    expect(tab.listenerCount()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(service.requests.length).toBeLessThanOrEqual(1);
  });
});

describe('definition and accessibility', () => {
  it('a second definition (two script tags) keeps the first constructor, and nothing throws or warns', async () => {
    const first = customElements.get('live-visitors');
    const define = vi.spyOn(customElements, 'define');
    const warnings = [vi.spyOn(console, 'warn'), vi.spyOn(console, 'error')];
    const errors: unknown[] = [];
    const hearError = (event: ErrorEvent) => errors.push(event.error);
    window.addEventListener('error', hearError);
    try {
      // A fresh copy of the module, as a second script tag evaluates it: a class of its own.
      vi.resetModules();
      const second = await import('../src/define.js');
      expect(second.LiveVisitors).not.toBe(first);
      expect(customElements.get('live-visitors')).toBe(first);
      expect(define).not.toHaveBeenCalled();
      expect(warnings.flatMap((spy) => spy.mock.calls)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      window.removeEventListener('error', hearError);
    }
  });

  it.each([
    ['live', () => {}],
    ['loading', () => (service.reply = () => 'hang')],
    ['unavailable', () => (service.reply = () => ({ status: 404, body: { error: 'Website not found' } }))],
  ])('passes an axe audit when %s', async (state, arrange) => {
    arrange();
    const el = await widget();
    expect(el.getAttribute('state')).toBe(state);
    vi.useRealTimers();
    await chaiExpect(el).to.be.accessible();
  });
});
