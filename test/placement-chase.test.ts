import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Placements } from '../src/placement.js';

// Issue 29 §1: a selector whose first match changes when the element goes in (the element's own
// insertion makes another element the first match) must not make the element chase it, and a page
// that answers every insertion by rendering the anchor again must not hold the main thread.
// test/browser/placement-chase.test.ts runs the same pages in Chromium.

let placements: Placements;
let warnings: string[];
let insertions: () => number;

/** Past this many insertions of the element the test's own spy throws, so a chasing placement fails the test instead of hanging it. */
const RUNAWAY = 200;

beforeEach(() => {
  placements = new Placements();
  warnings = [];
  vi.spyOn(console, 'warn').mockImplementation((message: string) => warnings.push(message));
  const insert = Element.prototype.insertAdjacentElement;
  let count = 0;
  vi.spyOn(Element.prototype, 'insertAdjacentElement').mockImplementation(function (this: Element, where, element) {
    if (element.localName === 'live-visitors') count += 1;
    if (count > RUNAWAY) throw new Error('the placement is still moving');
    return insert.call(this, where, element);
  });
  insertions = () => count;
});

afterEach(() => placements.stop());

const placed = () => [...document.querySelectorAll('live-visitors')];
/** Mutation records are delivered in a microtask, placements looked at in the next animation frame: let both run, twice. */
async function settled(): Promise<void> {
  for (let round = 0; round < 2; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
}
/** Changes that have nothing to do with the placement: a lazy loader, a cart drawer. */
async function unrelatedChanges(times: number): Promise<void> {
  const drawer = document.querySelector('#drawer')!;
  for (let change = 0; change < times; change += 1) {
    drawer.insertAdjacentHTML('beforeend', `<p>Item ${change}</p>`);
    await settled();
  }
}

describe('a selector that matches another element once the element is in', () => {
  it.each([
    [
      '.card .price:last-child, after, two product cards',
      '<div class="card"><p class="price">€40</p></div><div class="card"><p class="price">€50</p></div>',
      { selector: '.card .price:last-child', position: 'after' },
      () => document.querySelector('.price')!.nextElementSibling,
    ],
    [
      '.slot:empty, first, two empty slots',
      '<div class="slot" id="one"></div><div class="slot" id="two"></div>',
      { selector: '.slot:empty', position: 'first' },
      () => document.querySelector('#one')!.firstElementChild,
    ],
  ])('%s: placed once by the first match, and kept there while the page changes', async (_, html, entry, neighbour) => {
    document.body.innerHTML = `<main>${html}</main><aside id="drawer"></aside>`;
    placements.add(entry);
    await unrelatedChanges(5);
    expect(placed()).toHaveLength(1);
    expect(neighbour()).toBe(placed()[0]);
    expect(insertions()).toBe(1);
    expect(warnings).toEqual([]);
  });

  it('keeps its anchor while the anchor is in the document, and follows when the anchor is replaced', async () => {
    document.body.innerHTML =
      '<main><div class="card"><p class="price">€40</p></div><div class="card"><p class="price">€50</p></div></main><aside id="drawer"></aside>';
    placements.add({ selector: '.card .price:last-child', position: 'after' });
    const element = placed()[0]!;
    const second = document.querySelectorAll('.card')[1]!;
    // The first card is rendered again (a variant change): its new price is the first match again.
    document.querySelector('.card')!.innerHTML = '<p class="price">€35</p>';
    await settled();
    expect(document.querySelector('.price')!.nextElementSibling).toBe(element);
    expect(second.querySelector('live-visitors')).toBeNull();
    expect(placed()).toEqual([element]);
  });
});

describe('a page that renders the anchor again whenever the element goes in', () => {
  beforeEach(() => {
    document.body.innerHTML = '<main><div id="product"><form class="product-form"></form></div></main><aside id="drawer"></aside>';
    const box = document.querySelector('#product')!;
    // A framework that keeps its box to itself: anything else in it makes it render the box afresh.
    new MutationObserver(() => {
      if (box.querySelector('live-visitors')) box.innerHTML = '<form class="product-form"></form>';
    }).observe(box, { childList: true });
  });

  it('stops after a few moves with one warning naming the selector, and the page keeps answering', async () => {
    placements.add({ selector: '.product-form', position: 'before' });
    await unrelatedChanges(30);
    expect(insertions()).toBeLessThanOrEqual(8);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('".product-form"');
    expect(placements.size).toBe(0);
    // Nothing more moves and no other warning comes, whatever the page does next.
    const after = insertions();
    await unrelatedChanges(10);
    expect([insertions(), warnings.length]).toEqual([after, 1]);
  });
});

describe('a theme that replaces the anchor often, but not every frame', () => {
  afterEach(() => vi.useRealTimers());

  it('is followed every time at 3 changes a second, for as long as it goes on, without a warning', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    document.body.innerHTML = '<main><form class="product-form"></form></main><aside id="drawer"></aside>';
    placements.add({ selector: '.product-form' });
    const element = placed()[0];
    for (let variant = 1; variant <= 12; variant += 1) {
      vi.setSystemTime(variant * 333);
      document.querySelector('.product-form')!.replaceWith(Object.assign(document.createElement('form'), { className: 'product-form' }));
      await settled();
      expect(document.querySelector('.product-form')!.nextElementSibling).toBe(element);
    }
    expect([insertions(), warnings]).toEqual([13, []]);
  });
});

describe("the observer's work per batch of changes", () => {
  it('a placed element looks nothing up while unrelated parts of the page change', async () => {
    document.body.innerHTML = '<main><form class="product-form"></form></main><aside id="drawer"></aside>';
    placements.add({ selector: '.product-form' });
    const lookups = vi.spyOn(document, 'querySelector');
    await unrelatedChanges(20);
    expect(lookups.mock.calls.filter(([selector]) => selector === '.product-form')).toEqual([]);
  });

  it('a waiting placement is looked up once per frame, however many batches of changes the frame saw', async () => {
    document.body.innerHTML = '<main></main><aside id="drawer"></aside>';
    placements.add({ selector: '#late' });
    const lookups = vi.spyOn(document, 'querySelector');
    const drawer = document.querySelector('#drawer')!;
    // Fifty batches (each delivered in its own microtask) before the next frame.
    for (let change = 0; change < 50; change += 1) {
      drawer.insertAdjacentHTML('beforeend', '<p>Item</p>');
      await Promise.resolve();
    }
    await settled();
    const looked = lookups.mock.calls.filter(([selector]) => selector === '#late').length;
    expect(looked).toBeGreaterThanOrEqual(1);
    expect(looked).toBeLessThanOrEqual(2);
    document.querySelector('main')!.innerHTML = '<div id="late"></div>';
    await settled();
    expect(document.querySelector('#late')!.nextElementSibling).toBe(placed()[0]);
  });
});
