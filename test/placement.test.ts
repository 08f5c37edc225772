import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import rules from '../src/contract/rules.json' with { type: 'json' };
import { ANCHOR_WAIT_MS, type PlacementPosition, Placements, takePlacements } from '../src/placement.js';
import { watchPlacementQueue } from '../src/placement-queue.js';
import { setEnvironment } from '../src/realtime/environment.js';

// The placement logic in happy-dom, with no element registered: what is placed where, and when.
// The browser suite (test/browser/placement.test.ts) shows a count and measures layout shift.

let placements: Placements;
let warnings: string[];

beforeEach(() => {
  document.body.innerHTML =
    '<main><p id="price">€40</p><form class="product-form"><button>Add</button></form><p id="note">Ships</p></main>';
  placements = new Placements();
  warnings = [];
  vi.spyOn(console, 'warn').mockImplementation((message: string) => warnings.push(message));
});

afterEach(() => {
  placements.stop();
  vi.useRealTimers();
});

/** MutationObserver callbacks are microtasks, and placements are looked at in the next animation frame: let both run. */
async function nextFrame(): Promise<void> {
  // The mutation records' microtask first: it asks for the frame that this one then waits for.
  await Promise.resolve();
  await new Promise((resolve) => requestAnimationFrame(resolve));
}
async function mutationsDelivered(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  await nextFrame();
}
const placed = () => [...document.querySelectorAll('live-visitors')];
const form = () => document.querySelector('.product-form')!;

describe('where the element goes', () => {
  it.each([
    ['before', (anchor: Element) => anchor.previousElementSibling],
    ['after', (anchor: Element) => anchor.nextElementSibling],
    ['first', (anchor: Element) => anchor.firstElementChild],
    ['last', (anchor: Element) => anchor.lastElementChild],
    [undefined, (anchor: Element) => anchor.nextElementSibling],
  ] as Array<[PlacementPosition | undefined, (anchor: Element) => Element | null]>)('position %s', (position, neighbour) => {
    placements.add({ selector: 'form[class*="product"]', position, attributes: { 'website-id': 'shop' } });
    expect(placed()).toHaveLength(1);
    expect(neighbour(form())).toBe(placed()[0]);
    expect(warnings).toEqual([]);
  });

  it('by the first element the selector matches', () => {
    document.querySelector('main')!.insertAdjacentHTML('beforeend', '<form class="product-form" id="second"></form>');
    placements.add({ selector: '.product-form' });
    expect(placed()[0]!.previousElementSibling).toBe(form());
  });

  it('an unknown position: one warning naming it, placed after', () => {
    placements.add({ selector: '.product-form', position: 'middle' });
    expect(form().nextElementSibling).toBe(placed()[0]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"middle"');
  });
});

describe('the placed element', () => {
  it('has the given attributes set as attributes, never as markup, and the reserved lines', () => {
    const hostile = '"><img src=x onerror="window.pwned=1">';
    placements.add({ selector: '.product-form', attributes: { 'website-id': hostile, min: 5, 'api-base': '/apps/live-visitors' } });
    const [element] = placed();
    expect(element!.getAttribute('website-id')).toBe(hostile);
    expect(element!.getAttribute('min')).toBe('5');
    expect(element!.getAttribute('api-base')).toBe('/apps/live-visitors');
    // The contract's one copy of the style (placement.ts writes it out, for bytes): they must not differ.
    expect(element!.getAttribute('style')).toBe(rules.reservedLinesStyle);
    expect(document.querySelector('img')).toBeNull();
    expect(element!.children).toHaveLength(0);
  });

  it('leaves out what cannot be an attribute, one warning each, and keeps the rest', () => {
    placements.add({ selector: '.product-form', attributes: { 'bad name': 'x', nested: { a: 1 }, 'website-id': 'shop' } });
    const [element] = placed();
    expect(element!.getAttributeNames().sort()).toEqual(['style', 'website-id']);
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toMatch(/bad name[\s\S]*nested|nested[\s\S]*bad name/);
  });

  it.each(['onclick', 'ONmouseover', 'onfocus'])('leaves out an event handler attribute (%s): settings, never script', (name) => {
    placements.add({ selector: '.product-form', attributes: { [name]: 'window.pwned = 1', 'website-id': 'shop' } });
    expect(placed()[0]!.getAttributeNames().sort()).toEqual(['style', 'website-id']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(name);
  });

  it('a style given replaces the reserved lines', () => {
    placements.add({ selector: '.product-form', attributes: { style: 'display:block;min-height:1lh' } });
    expect(placed()[0]!.getAttribute('style')).toBe('display:block;min-height:1lh');
  });
});

describe('an anchor that comes late, goes, or is replaced', () => {
  it('is waited for, and the element is placed as soon as it appears', async () => {
    form().remove();
    placements.add({ selector: '.product-form', position: 'before' });
    await mutationsDelivered();
    expect(placed()).toHaveLength(0);
    document.querySelector('#note')!.insertAdjacentHTML('beforebegin', '<form class="product-form"></form>');
    await mutationsDelivered();
    expect(placed()).toHaveLength(1);
    expect(form().previousElementSibling).toBe(placed()[0]);
  });

  it('a replaced anchor (a variant change) takes the same element along: never two', async () => {
    placements.add({ selector: '.product-form' });
    const element = placed()[0];
    for (let variant = 0; variant < 3; variant += 1) {
      const next = document.createElement('form');
      next.className = 'product-form';
      form().replaceWith(next);
      await mutationsDelivered();
      expect(placed()).toEqual([element]);
      expect(next.nextElementSibling).toBe(element);
    }
  });

  it('inside an anchor whose content is rendered again, the element is put back', async () => {
    placements.add({ selector: '.product-form', position: 'last' });
    const element = placed()[0];
    form().innerHTML = '<button>Add to cart</button>';
    await mutationsDelivered();
    expect(form().lastElementChild).toBe(element);
    expect(placed()).toHaveLength(1);
  });

  it('an anchor that goes (a route change) takes the element with it, and one that comes back brings it back', async () => {
    placements.add({ selector: '.product-form' });
    const element = placed()[0];
    const main = document.querySelector('main')!;
    const page = main.innerHTML;
    main.innerHTML = '<p>Cart</p>';
    // The element sat beside the form, so the form's removal alone would leave it on the cart page.
    await mutationsDelivered();
    expect(placed()).toEqual([]);
    main.innerHTML = page.replace(/<live-visitors[^>]*><\/live-visitors>/, '');
    await mutationsDelivered();
    expect(placed()).toEqual([element]);
    expect(form().nextElementSibling).toBe(element);
  });

  it('keeps its element still while the rest of the page changes', async () => {
    placements.add({ selector: '.product-form' });
    const element = placed()[0];
    const observed: MutationRecord[] = [];
    const watcher = new MutationObserver((records) => observed.push(...records));
    watcher.observe(document.body, { childList: true, subtree: true });
    document.querySelector('#note')!.textContent = 'Ships tomorrow';
    form().insertAdjacentHTML('afterend', '<p>Only 3 left</p>');
    await mutationsDelivered();
    watcher.disconnect();
    // Only the page's own two changes: the element was not moved back behind the form.
    expect(observed.filter((record) => [...record.addedNodes].includes(element!))).toEqual([]);
    expect(placed()).toEqual([element]);
  });
});

describe('one placement, one element', () => {
  it('the same selector and position pushed again add nothing (a tag that fires twice)', async () => {
    placements.add({ selector: '.product-form', attributes: { 'website-id': 'shop' } });
    placements.add({ selector: '.product-form', attributes: { 'website-id': 'shop' } });
    placements.add({ selector: '.product-form', position: 'after' });
    await mutationsDelivered();
    expect(placed()).toHaveLength(1);
    expect(placements.size).toBe(1);
  });

  it('another position by the same anchor is another placement', () => {
    placements.add({ selector: '.product-form', position: 'before' });
    placements.add({ selector: '.product-form', position: 'after' });
    expect(placed()).toHaveLength(2);
  });
});

describe('bad input: one warning naming the problem, nothing thrown, nothing placed', () => {
  it.each([
    ['a selector that is not CSS', { selector: 'form[action*=' }, 'form[action*='],
    ['another', { selector: '..product' }, '..product'],
    ['no selector', { position: 'after' }, 'selector'],
    ['an empty selector', { selector: '  ' }, 'selector'],
    ['a selector that is not a string', { selector: 42 }, 'selector'],
    ['not an object', 'form', 'selector'],
    ['null', null, 'selector'],
  ])('%s', (_, entry, named) => {
    expect(() => placements.add(entry)).not.toThrow();
    expect(placed()).toHaveLength(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(named);
    expect(placements.size).toBe(0);
  });

  it('attributes that are not an object: placed without them, one warning', () => {
    placements.add({ selector: '.product-form', attributes: 'website-id=shop' });
    expect(placed()[0]!.getAttributeNames()).toEqual(['style']);
    expect(warnings).toHaveLength(1);
  });
});

describe('an anchor that never appears', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });

  it(`is given up after ${ANCHOR_WAIT_MS / 1000} s with one warning naming the selector`, async () => {
    placements.add({ selector: '#quick-buy' });
    await vi.advanceTimersByTimeAsync(ANCHOR_WAIT_MS - 1);
    expect(warnings).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"#quick-buy"');
    expect(placements.size).toBe(0);
    // Later it is not placed, and no more warnings come.
    document.body.insertAdjacentHTML('beforeend', '<div id="quick-buy"></div>');
    await vi.advanceTimersByTimeAsync(5 * ANCHOR_WAIT_MS);
    expect([placed().length, warnings.length]).toEqual([0, 1]);
  });

  it('is waited for afresh when pushed again after it was given up', async () => {
    placements.add({ selector: '#quick-buy' });
    await vi.advanceTimersByTimeAsync(ANCHOR_WAIT_MS);
    placements.add({ selector: '#quick-buy' });
    document.body.insertAdjacentHTML('beforeend', '<div id="quick-buy"></div>');
    await nextFrame();
    expect(placed()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(5 * ANCHOR_WAIT_MS);
    expect(warnings).toHaveLength(1);
  });

  it('in a hidden tab (no animation frames), an anchor that came unseen is placed when the wait ends, without a warning', async () => {
    vi.stubGlobal('requestAnimationFrame', () => 1);
    placements.add({ selector: '#quick-buy' });
    document.body.insertAdjacentHTML('beforeend', '<div id="quick-buy"></div>');
    await vi.advanceTimersByTimeAsync(ANCHOR_WAIT_MS - 1);
    expect(placed()).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(document.querySelector('#quick-buy')!.nextElementSibling).toBe(placed()[0]);
    expect([placed().length, warnings]).toEqual([1, []]);
  });

  it('an anchor found in time cancels the warning', async () => {
    placements.add({ selector: '#quick-buy' });
    await vi.advanceTimersByTimeAsync(ANCHOR_WAIT_MS - 100);
    document.body.insertAdjacentHTML('beforeend', '<div id="quick-buy"></div>');
    await vi.advanceTimersByTimeAsync(5 * ANCHOR_WAIT_MS);
    expect([placed().length, warnings]).toEqual([1, []]);
  });

  it("waits on the environment's after() (the one timer seam), and its cancel stops the wait", () => {
    const waits: Array<{ delayMs: number; callback: () => void; cancelled: boolean }> = [];
    const restore = setEnvironment({
      after(delayMs, callback) {
        const wait = { delayMs, callback, cancelled: false };
        waits.push(wait);
        return () => {
          wait.cancelled = true;
        };
      },
    });
    try {
      placements.add({ selector: '#quick-buy' });
      placements.add({ selector: '#side-cart' });
      expect(waits.map(({ delayMs, cancelled }) => [delayMs, cancelled])).toEqual([
        [ANCHOR_WAIT_MS, false],
        [ANCHOR_WAIT_MS, false],
      ]);
      waits[0]!.callback();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('"#quick-buy"');
      placements.stop();
      expect(waits[1]!.cancelled).toBe(true);
    } finally {
      restore();
    }
  });

  it('while the page is still loading, the clock starts at DOMContentLoaded', async () => {
    vi.spyOn(document, 'readyState', 'get').mockReturnValue('loading');
    placements.add({ selector: '#quick-buy' });
    await vi.advanceTimersByTimeAsync(3 * ANCHOR_WAIT_MS);
    expect(warnings).toEqual([]);
    document.dispatchEvent(new Event('DOMContentLoaded'));
    await vi.advanceTimersByTimeAsync(ANCHOR_WAIT_MS - 1);
    expect(warnings).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(warnings).toHaveLength(1);
  });
});

describe('the window.liveVisitors queue', () => {
  it('takes what was pushed before, empties it, and places what is pushed after at once', () => {
    const queue: unknown[] = [{ selector: '.product-form', position: 'before' }, { selector: '#bad[' }];
    takePlacements(queue, placements);
    expect(queue).toHaveLength(0);
    expect(form().previousElementSibling?.localName).toBe('live-visitors');
    expect(warnings).toHaveLength(1);
    queue.push({ selector: '#note', position: 'first' }, { selector: '#price', position: 'last' });
    expect(placed()).toHaveLength(3);
    expect(queue).toHaveLength(0);
  });
});

describe("the script-tag file's look at window.liveVisitors", () => {
  const global = globalThis as { liveVisitors?: unknown };
  afterEach(() => {
    delete global.liveVisitors;
  });

  it('an entry pushed before the file runs is placed', async () => {
    global.liveVisitors = [{ selector: '#price', position: 'before', attributes: { 'website-id': 'early' } }];
    watchPlacementQueue();
    await vi.waitFor(() => expect(document.querySelector('#price')!.previousElementSibling?.getAttribute('website-id')).toBe('early'));
    expect(global.liveVisitors).toHaveLength(0);
  });

  it('without a queue it makes one, and an entry pushed later is placed (the chunk loads then)', async () => {
    watchPlacementQueue();
    const queue = global.liveVisitors as unknown[];
    expect([Array.isArray(queue), queue.length]).toEqual([true, 0]);
    expect(queue.push({ selector: '#note', position: 'after', attributes: { 'website-id': 'late' } })).toBe(1);
    await vi.waitFor(() => expect(document.querySelector('#note')!.nextElementSibling?.getAttribute('website-id')).toBe('late'));
    expect(queue).toHaveLength(0);
  });

  it('a global of that name that is not an array is left alone', () => {
    const other = { push: vi.fn() };
    global.liveVisitors = other;
    expect(() => watchPlacementQueue()).not.toThrow();
    expect(global.liveVisitors).toBe(other);
    expect(other.push).not.toHaveBeenCalled();
  });
});
