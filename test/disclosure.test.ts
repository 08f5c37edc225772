import { fixture } from '@open-wc/testing';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import '../src/define.js';
import type { LiveVisitors } from '../src/live-visitors.js';
import { closePage, openElementPage, settle } from './support/element-page.js';
import type { FakeService } from './support/fake-service.js';
import { languageLoaded } from './support/languages.js';

// Loaded before the fake clock: the German file is a real dynamic import.
beforeAll(() => languageLoaded('de'));

const MINUTE = 60_000;

let service: FakeService;
let websiteId: string;
let restoreEnvironment: () => void;

beforeEach(() => {
  ({ service, websiteId, restoreEnvironment } = openElementPage());
});

afterEach(() => closePage(restoreEnvironment));

/** The element inside a `<div lang=…>` (none: the document's language, English here). */
async function widget(attributes = '', lang?: string): Promise<LiveVisitors> {
  const host = await fixture<HTMLElement>(
    `<div ${lang ? `lang="${lang}"` : ''}><live-visitors website-id="${websiteId}" api-base="https://a.example" ${attributes}></live-visitors></div>`,
  );
  const el = host.querySelector('live-visitors')!;
  await settle(el);
  return el;
}

const base = (el: LiveVisitors) => el.shadowRoot!.querySelector<HTMLElement>('[part="base"]')!;
const disclosure = (el: LiveVisitors) => el.shadowRoot!.querySelector<HTMLElement>('[part="disclosure"]');
/** The fake clock's time now (when the fake service stamps its report), in 24-hour digits: how it reads until someone opens a disclosure. */
const digitsTime = (at = Date.now()) => {
  const date = new Date(at);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
};
/** The same time in a language's own way: how it reads once someone has opened a disclosure on the page. */
const ownStyleTime = (lang: string, at = Date.now()) => new Intl.DateTimeFormat(lang, { timeStyle: 'short' }).format(at);
const pressEscape = () => document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));

describe('the disclosure (on by default)', () => {
  it('makes the sentence one tab stop, described by the tooltip in the same shadow root', async () => {
    const el = await widget();
    const tooltip = disclosure(el)!;
    expect(base(el).getAttribute('tabindex')).toBe('0');
    expect(tooltip.getAttribute('role')).toBe('tooltip');
    // An IDREF resolves within its own tree: the tooltip must sit in the same shadow root.
    expect(el.shadowRoot!.getElementById(base(el).getAttribute('aria-describedby')!)).toBe(tooltip);
    expect(el.shadowRoot!.querySelectorAll('[tabindex]')).toHaveLength(1);
  });

  it('says what the number is, with the time the report was collected', async () => {
    const el = await widget();
    const collectedAt = el.updatedAt!.getTime();
    expect(disclosure(el)!.textContent).toBe(
      `Unique visitors on this whole site in the last 3 minutes · updated ${digitsTime(collectedAt)}`,
    );
    expect(disclosure(el)!.lang).toBe('en');
  });

  // The page's first Intl.DateTimeFormat is a long task on a phone: it waits for a reader.
  it("writes the time in the language's own way as the pointer comes, before the tooltip shows, and from then on on the whole page", async () => {
    const el = await widget();
    const text = () => disclosure(el)!.textContent;
    expect(ownStyleTime('en')).not.toBe(digitsTime());
    expect(text()).toContain(`updated ${digitsTime()}`);
    el.dispatchEvent(new PointerEvent('pointerenter'));
    // At once: no update waited for.
    expect(text()).toBe(`Unique visitors on this whole site in the last 3 minutes · updated ${ownStyleTime('en')}`);
    const other = await widget();
    expect(disclosure(other)!.textContent).toContain(`updated ${ownStyleTime('en')}`);
  });

  it("writes the time in the language's own way as keyboard focus comes, so a screen reader reads it so", async () => {
    const el = await widget();
    base(el).focus();
    expect(disclosure(el)!.textContent).toContain(`updated ${ownStyleTime('en')}`);
  });

  it('follows a new report with a new timestamp', async () => {
    const el = await widget();
    const first = disclosure(el)!.textContent;
    await settle(el, MINUTE);
    expect(service.requests).toHaveLength(2);
    expect(disclosure(el)!.textContent).not.toBe(first);
    expect(disclosure(el)!.textContent).toContain(`updated ${digitsTime()}`);
  });

  it('disclosure-text replaces the text, {time} included', async () => {
    const el = await widget('disclosure-text="Visitors in the last 3 minutes (as of {time})"');
    expect(disclosure(el)!.textContent).toBe(`Visitors in the last 3 minutes (as of ${digitsTime()})`);
  });

  it('disclosure="off" leaves no tab stop, no description and no tooltip', async () => {
    const el = await widget();
    el.disclosure = 'off';
    await settle(el);
    expect(base(el).hasAttribute('tabindex')).toBe(false);
    expect(base(el).hasAttribute('aria-describedby')).toBe(false);
    expect(disclosure(el)).toBeNull();
    expect(el.shadowRoot!.textContent).toBe('23 people are browsing this shop right now');
  });

  it('is not there while the fallback shows', async () => {
    service.count = 3;
    const el = await widget('min="5"');
    expect(el.shadowRoot!.querySelector('slot[name="fallback"]')).not.toBeNull();
    expect(disclosure(el)).toBeNull();
  });
});

describe('the language of the disclosure', () => {
  it('is German on a German page', async () => {
    const el = await widget('', 'de');
    expect(disclosure(el)!.lang).toBe('de');
    expect(disclosure(el)!.textContent).toBe(
      `Eindeutige Besucher auf der gesamten Website in den letzten 3 Minuten · aktualisiert um ${digitsTime()}`,
    );
  });

  it('is English, marked so, on a page in a language without texts (Icelandic)', async () => {
    const el = await widget('', 'is');
    expect(disclosure(el)!.lang).toBe('en');
    expect(disclosure(el)!.textContent).toContain(`updated ${digitsTime()}`);
  });

  it("is the page's for a custom disclosure-text, its {time} too", async () => {
    const el = await widget('disclosure-text="Besucher der letzten 3 Minuten, Stand {time}"', 'is');
    expect(disclosure(el)!.lang).toBe('is');
    expect(disclosure(el)!.textContent).toBe(`Besucher der letzten 3 Minuten, Stand ${digitsTime()}`);
  });
});

// Whether the tooltip is visible on hover or focus is CSS, which happy-dom does not apply: the
// browser suite judges that. Here: the `hidden` that Escape sets and leaving clears.
describe('Escape', () => {
  it('hides the tooltip while focus is in the element, and leaving lets it show again', async () => {
    const el = await widget();
    const tooltip = disclosure(el)!;
    base(el).focus();
    expect(el.shadowRoot!.activeElement).toBe(base(el));
    pressEscape();
    expect(tooltip.hidden).toBe(true);
    base(el).blur();
    expect(document.activeElement).toBe(document.body);
    expect(tooltip.hidden).toBe(false);
  });

  // Synthetic pointer events: happy-dom has no real hover (`:hover` never matches there).
  it('hides the tooltip while the pointer is on the element, and leaving lets it show again', async () => {
    const el = await widget();
    el.dispatchEvent(new PointerEvent('pointerenter'));
    pressEscape();
    expect(disclosure(el)!.hidden).toBe(true);
    el.dispatchEvent(new PointerEvent('pointerleave'));
    expect(disclosure(el)!.hidden).toBe(false);
    pressEscape();
    expect(disclosure(el)!.hidden).toBe(false);
  });

  it('other keys leave the tooltip alone', async () => {
    const el = await widget();
    base(el).focus();
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    expect(disclosure(el)!.hidden).toBe(false);
  });

  it('is not heard once focus has left', async () => {
    const el = await widget();
    base(el).focus();
    base(el).blur();
    pressEscape();
    expect(disclosure(el)!.hidden).toBe(false);
  });
});
