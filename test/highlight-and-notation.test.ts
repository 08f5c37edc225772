import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../src/define.js';
import type { LiveVisitors } from '../src/live-visitors.js';
import { setEnvironment } from '../src/realtime/environment.js';
import { activeFeedCount } from '../src/realtime/feed.js';
import { closePage, mountWidget, openElementPage, settle } from './support/element-page.js';
import type { FakeBrowser } from './support/fake-browser.js';
import type { FakeService } from './support/fake-service.js';

const MINUTE = 60_000;

let service: FakeService;
let browser: FakeBrowser;
let websiteId: string;
let restoreEnvironment: () => void;

beforeEach(() => {
  ({ service, browser, websiteId, restoreEnvironment } = openElementPage());
});

afterEach(() => closePage(restoreEnvironment));

const widget = (attributes = '') => mountWidget(websiteId, attributes);

const number = (el: LiveVisitors) => el.shadowRoot!.querySelector<HTMLElement>('[part="count"]')!;
const isHighlighted = (el: LiveVisitors) => number(el).classList.contains('changed');
const shownText = (el: LiveVisitors) => el.shadowRoot!.querySelector('[part="text"]')?.textContent ?? null;

describe('the highlight of a new number', () => {
  it('is not on the first number painted', async () => {
    const el = await widget();
    expect(number(el).textContent).toBe('23');
    expect(isHighlighted(el)).toBe(false);
  });

  it('is on a new, different number', async () => {
    const el = await widget();
    service.count = 24;
    await settle(el, MINUTE);
    expect(number(el).textContent).toBe('24');
    expect(isHighlighted(el)).toBe(true);
  });

  it('is not on the same number coming again', async () => {
    const el = await widget();
    await settle(el, MINUTE);
    expect(service.requests).toHaveLength(2);
    expect(isHighlighted(el)).toBe(false);
  });

  // A CSS animation replays only on a new element or a class added again: the same node, left
  // alone, is not highlighted a second time.
  it('is not played again when the new number comes again', async () => {
    const el = await widget();
    service.count = 24;
    await settle(el, MINUTE);
    const highlighted = number(el);
    await settle(el, MINUTE);
    expect(service.requests).toHaveLength(3);
    expect(number(el)).toBe(highlighted);
  });

  it('is not on the cached number a new page load paints first, but on the new one its poll brings', async () => {
    (await widget()).remove();
    await settle();
    expect(activeFeedCount()).toBe(0);
    // The next page: another tab of the same browser profile, so the count comes from storage.
    restoreEnvironment();
    restoreEnvironment = setEnvironment(browser.openTab().env);
    const el = await widget();
    expect([service.requests.length, shownText(el), isHighlighted(el)]).toEqual([1, '23 people are browsing this shop right now', false]);
    service.count = 30;
    await settle(el, MINUTE);
    expect([service.requests.length, number(el).textContent, isHighlighted(el)]).toEqual([2, '30', true]);
  });

  it('is not on a number that comes back after the fallback', async () => {
    const el = await widget('min="20"');
    el.min = 30;
    await settle(el);
    expect(shownText(el)).toBeNull();
    service.count = 35;
    // Hidden, it comes back only after the steady display's 3-minute hold.
    await settle(el, 3 * MINUTE);
    expect(number(el).textContent).toBe('35');
    expect(isHighlighted(el)).toBe(false);
  });

  // The highlight says "the count moved"; the same count written another way has not moved.
  it('is not on the same count in another notation', async () => {
    service.count = 1234;
    const el = await widget();
    el.notation = 'compact';
    await settle(el);
    expect(number(el).textContent).toBe('1.2K');
    expect(isHighlighted(el)).toBe(false);
  });
});

describe('notation', () => {
  it.each([
    ['compact', '1.2K people are browsing this shop right now'],
    ['standard', '1,234 people are browsing this shop right now'],
    // Intl knows these; the element does not offer them: junk means standard.
    ['scientific', '1,234 people are browsing this shop right now'],
    ['engineering', '1,234 people are browsing this shop right now'],
    ['COMPACT-ish', '1,234 people are browsing this shop right now'],
    ['', '1,234 people are browsing this shop right now'],
  ])('notation="%s" shows %s', async (notation, text) => {
    service.count = 1234;
    const el = await widget(`notation="${notation}"`);
    expect(shownText(el)).toBe(text);
  });

  it('applies a notation set later', async () => {
    service.count = 1234;
    const el = await widget();
    el.setAttribute('notation', 'compact');
    await settle(el);
    expect(shownText(el)).toBe('1.2K people are browsing this shop right now');
  });
});
