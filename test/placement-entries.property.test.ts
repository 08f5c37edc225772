import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Placements, takePlacements } from '../src/placement.js';
import { holds } from './support/properties.js';

// The `window.liveVisitors` queue is untrusted input (a page's script, a Tag Manager field): for
// any entries at all, taking them never throws, a good entry after them is still placed, `push`
// stays the placing one, and no placed element carries an event handler attribute (issue 29 §1).

/** Fewer than the readers' thousand: each run builds a page and places elements in it (about 3 ms). */
const RUNS = 300;
/**
 * The config's hang limit; the long run (`FC_RUNS_FACTOR`, test/support/properties.ts) multiplies
 * the runs, and the time allowed grows with them. A busy machine takes its time over 300 runs
 * (10 s was not enough at load 20); only a hang ends them.
 */
const TIMEOUT_MS = 120_000 * Math.max(1, Math.floor(Number(process.env.FC_RUNS_FACTOR)) || 1);

const PAGE =
  '<main><form class="product-form"></form><p id="note">Ships</p><div class="slot"></div><div class="slot"></div><p id="good-anchor">Offer</p></main>';

const selectorLike = fc.oneof(
  fc.constantFrom('.product-form', '#note', 'html', ':root', 'head', 'title', 'body', 'main > *', 'p:last-child', '.slot:empty'),
  fc.constantFrom('form[action*=', '..x', '', '  ', '#', ':has(', '*'),
  fc.string({ maxLength: 16 }),
  fc.anything(),
);
const positionLike = fc.oneof(fc.constantFrom('before', 'after', 'first', 'last', undefined, 'middle', 'AFTER'), fc.anything());
const attributesLike = fc.oneof(
  fc.dictionary(
    fc.oneof(fc.constantFrom('website-id', 'min', 'onclick', 'OnLoad', 'style', 'bad name', '"', ''), fc.string({ maxLength: 10 })),
    fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.anything()),
  ),
  fc.anything(),
);

/** An entry as a page may push it: any value, or an object whose fields may be getters that throw. */
const entryLike = fc.oneof(
  fc.anything(),
  fc
    .record({
      selector: selectorLike,
      position: positionLike,
      attributes: attributesLike,
      throwing: fc.constantFrom(null, 'selector', 'position', 'attributes'),
    })
    .map(({ throwing, ...fields }) => {
      const entry: Record<string, unknown> = { ...fields };
      if (throwing)
        Object.defineProperty(entry, throwing, {
          enumerable: true,
          get() {
            throw new Error(`hostile ${throwing}`);
          },
        });
      return entry;
    }),
);

const GOOD = { selector: '#good-anchor', position: 'after', attributes: { 'website-id': 'shop' } };

let placements: Placements;

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});

afterEach(() => placements?.stop());

/** A fresh page and a fresh set of placements for one run. */
function freshPage(): void {
  placements?.stop();
  for (const element of document.querySelectorAll('live-visitors')) element.remove();
  document.head.innerHTML = '<title>Shop</title>';
  document.body.innerHTML = PAGE;
  placements = new Placements();
}

/** Every placed element: only attributes, none an event handler. */
function placedElementsAreClean(): void {
  for (const element of document.querySelectorAll('live-visitors')) {
    expect(element.getAttributeNames().filter((name) => /^on/i.test(name))).toEqual([]);
    expect(element.children).toHaveLength(0);
  }
}

const isPlacedByGoodAnchor = () => document.querySelector('#good-anchor')?.nextElementSibling?.localName === 'live-visitors';

describe('any entries in the queue', () => {
  it('are taken one by one without throwing, and a good entry after them is placed', { timeout: TIMEOUT_MS }, () => {
    holds(
      fc.property(fc.array(entryLike, { maxLength: 6 }), (entries) => {
        freshPage();
        for (const entry of entries) expect(() => placements.add(entry)).not.toThrow();
        placements.add(GOOD);
        expect(isPlacedByGoodAnchor()).toBe(true);
        placedElementsAreClean();
      }),
      RUNS,
    );
  });

  it('held by the queue before it is taken: emptied, push places what comes later, whatever came before', { timeout: TIMEOUT_MS }, () => {
    holds(
      fc.property(fc.array(entryLike, { maxLength: 6 }), fc.array(entryLike, { maxLength: 3 }), (before, after) => {
        freshPage();
        const queue: unknown[] = [...before];
        expect(() => takePlacements(queue, placements)).not.toThrow();
        expect(queue).toHaveLength(0);
        expect(() => queue.push(...after, GOOD)).not.toThrow();
        expect(queue).toHaveLength(0);
        expect(isPlacedByGoodAnchor()).toBe(true);
        placedElementsAreClean();
      }),
      RUNS,
    );
  });
});
