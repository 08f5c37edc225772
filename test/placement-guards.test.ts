import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Placements, takePlacements } from '../src/placement.js';
import { watchPlacementQueue } from '../src/placement-queue.js';

// Issue 29 §1: one bad entry stops nothing else. Each entry is read and placed inside its own
// guard; an anchor nothing can be shown by is refused with one warning; the queue's `push` works
// whatever the queue held; later changes to the page never make the observer throw.

let placements: Placements;
let warnings: string[];
let pageErrors: unknown[];
const onError = (event: ErrorEvent) => pageErrors.push(event.error);

beforeEach(() => {
  document.head.innerHTML = '<title>Shop</title>';
  // Placed by `html` last in an earlier case, outside the body.
  for (const element of document.querySelectorAll('live-visitors')) element.remove();
  document.body.innerHTML =
    '<main><form class="product-form"></form><p id="note">Ships</p><div id="box"></div><template id="built"><p>x</p></template></main>';
  placements = new Placements();
  warnings = [];
  pageErrors = [];
  vi.spyOn(console, 'warn').mockImplementation((message: string) => warnings.push(message));
  window.addEventListener('error', onError);
});

afterEach(() => {
  placements.stop();
  window.removeEventListener('error', onError);
});

const placed = () => [...document.querySelectorAll('live-visitors')];
const good = { selector: '.product-form', position: 'after', attributes: { 'website-id': 'shop' } };
const isPlacedByForm = () => document.querySelector('.product-form')!.nextElementSibling?.localName === 'live-visitors';
async function settled(): Promise<void> {
  for (let round = 0; round < 2; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
}

const throwing = () => {
  throw new Error('hostile getter');
};
const HOSTILE_ENTRIES: Array<[string, unknown]> = [
  [
    'a selector getter that throws',
    {
      get selector() {
        return throwing();
      },
    },
  ],
  [
    'a position getter that throws',
    {
      selector: '#note',
      get position() {
        return throwing();
      },
    },
  ],
  [
    'an attributes getter that throws',
    {
      selector: '#note',
      get attributes() {
        return throwing();
      },
    },
  ],
  [
    'an attribute value getter that throws',
    {
      selector: '#note',
      attributes: {
        get 'website-id'() {
          return throwing();
        },
      },
    },
  ],
  ['a proxy that throws on every look', new Proxy({}, { get: throwing, ownKeys: throwing, getOwnPropertyDescriptor: throwing })],
  ['a selector object whose toString throws', { selector: { toString: throwing } }],
];

describe('an entry that throws when read', () => {
  it.each(HOSTILE_ENTRIES)('%s: one warning, nothing placed for it, and the next entry is placed', (_, entry) => {
    expect(() => placements.add(entry)).not.toThrow();
    placements.add(good);
    expect(isPlacedByForm()).toBe(true);
    expect(placed()).toHaveLength(1);
    expect(warnings).toHaveLength(1);
  });
});

describe('an anchor nothing can be shown by', () => {
  it.each([
    ['html', 'before'],
    ['html', 'after'],
    [':root', 'after'],
    ['head', 'first'],
    ['head', 'after'],
    ['title', 'after'],
    ['#built', 'last'],
    ['#built', 'after'],
  ])('%s with %s: refused with one warning naming it, and the next entry is placed', (selector, position) => {
    expect(() => placements.add({ selector, position })).not.toThrow();
    placements.add(good);
    expect(placed()).toHaveLength(1);
    expect(isPlacedByForm()).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`"${selector}"`);
    expect(placements.size).toBe(1);
  });

  it('html with first or last is a child of the page: placed', () => {
    placements.add({ selector: 'html', position: 'last' });
    expect(document.documentElement.lastElementChild?.localName).toBe('live-visitors');
    expect(warnings).toEqual([]);
  });

  it('an anchor that turns up late where nothing shows is refused when it turns up, once, and later changes stay quiet', async () => {
    placements.add(good);
    placements.add({ selector: 'head .late', position: 'after' });
    placements.add({ selector: '#box .later', position: 'first' });
    document.head.insertAdjacentHTML('beforeend', '<meta class="late">');
    await settled();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"head .late"');
    // The observer still places what comes after, and never throws on the page's changes.
    document.querySelector('#box')!.innerHTML = '<div class="later"></div>';
    for (let change = 0; change < 5; change += 1) {
      document.querySelector('#note')!.insertAdjacentHTML('afterend', '<p>more</p>');
      await settled();
    }
    expect(document.querySelector('.later')!.firstElementChild?.localName).toBe('live-visitors');
    expect([placed().length, warnings.length, pageErrors]).toEqual([2, 1, []]);
  });
});

describe("the page's queue, whatever it held", () => {
  const global = globalThis as { liveVisitors?: unknown };
  afterEach(() => {
    delete global.liveVisitors;
  });

  it.each([
    ['a bad entry before a good one', [{ selector: 'html', position: 'after' }, good]],
    ['a bad entry after a good one', [good, { selector: 'html', position: 'before' }]],
    ['an entry that throws when read, then a good one', [HOSTILE_ENTRIES[0]![1], good]],
  ])('%s: the good one is placed, and push places what comes later', async (_, entries) => {
    const queue = [...entries];
    takePlacements(queue, placements);
    expect(isPlacedByForm()).toBe(true);
    expect(queue).toHaveLength(0);
    queue.push({ selector: '#note', position: 'first' });
    expect(document.querySelector('#note')!.firstElementChild?.localName).toBe('live-visitors');
    expect(warnings).toHaveLength(1);
    document.querySelector('#box')!.innerHTML = '<p>changed</p>';
    await settled();
    expect(pageErrors).toEqual([]);
  });

  // The script-tag file's placements are the page's one set, kept from case to case: each case uses anchors of its own.
  it.each([
    ['before the script runs', true, '.product-form', '#note'],
    ['after the script runs', false, '#note', '#box'],
  ])('through the script-tag file, bad entries pushed %s stop neither the good one nor later pushes', async (_, before, anchor, later) => {
    const entries = [{ selector: ':root', position: 'before' }, HOSTILE_ENTRIES[4]![1], { selector: anchor, position: 'after' }];
    if (before) global.liveVisitors = entries;
    watchPlacementQueue();
    const queue = global.liveVisitors as unknown[];
    if (!before) queue.push(...entries);
    await vi.waitFor(() => expect(document.querySelector(anchor)!.nextElementSibling?.localName).toBe('live-visitors'));
    queue.push({ selector: later, position: 'first' });
    await vi.waitFor(() => expect(document.querySelector(later)!.firstElementChild?.localName).toBe('live-visitors'));
    expect([queue.length, warnings.length]).toEqual([0, 2]);
  });
});
