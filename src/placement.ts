// The placement chunk (dist/live-visitors-placement.js): loaded by the script-tag file only when
// `window.liveVisitors` has or gets an entry, so pages that write the element themselves never pay for it.
import type { Cancel } from './contract/timers.js';
import { environment } from './realtime/environment.js';

/** Where a placed element goes relative to its anchor, in `insertAdjacentElement`'s words. */
const POSITIONS = { before: 'beforebegin', after: 'afterend', first: 'afterbegin', last: 'beforeend' } as const;

export type PlacementPosition = keyof typeof POSITIONS;

/** One entry of the `window.liveVisitors` queue. */
export interface PlacementRequest {
  /** CSS selector of the anchor; the first element it matches is the one. */
  selector: string;
  /** Relative to the anchor: `before`, `after` (default), or the `first` or `last` child inside it. */
  position?: PlacementPosition;
  /** The element's attributes, e.g. `{ 'website-id': 'shop', min: '5' }`. */
  attributes?: Record<string, string>;
}

/**
 * How long an anchor that is not there yet is waited for, from when the placement is taken or
 * from DOMContentLoaded, whichever is later. Themes and headless shops render a product form
 * within a few seconds of load; an anchor still missing after ten is a wrong selector.
 */
export const ANCHOR_WAIT_MS = 10_000;

/**
 * The README snippet's reserved lines: the sentence appears, or wraps on a phone, and nothing moves.
 * rules.json's `reservedLinesStyle`, written out because importing the rules here too would put the
 * whole rules object in the core bundle (+606 B gzip, 422 B over its budget); test/placement.test.ts holds it equal.
 */
const RESERVED_LINES = 'display:block;min-height:2lh';

/** More moves than this within a second is a placement chasing something (its own insertion, a page that answers it): stopped. */
export const MAX_MOVES_PER_SECOND = 5;

interface Placement {
  readonly key: string;
  readonly selector: string;
  readonly where: InsertPosition;
  readonly attributes: Array<[string, string]>;
  /** Made at the first placing, then moved to every later anchor: one element per placement. */
  element?: HTMLElement;
  /** The anchor it stands by now. */
  anchor?: Element;
  /** Ends the wait for a first anchor; unset once placed or given up. */
  cancelWait?: (() => void) | undefined;
  /** Moves since `movesSince` (ms): more than `MAX_MOVES_PER_SECOND` within a second stop it. */
  moves?: number;
  movesSince?: number;
}

/** The element's own warnings' channel (and prefix), where the page's developer looks. */
const warn = (message: string) => environment().warn(message);
/** One warning about the placement by `selector`: what is wrong with it, and what was done. */
const warnBy = (selector: string, text: string) => warn(`placement by "${selector}": ${text}`);

/** A valid placement from an untrusted queue entry, or null after one warning that says why. */
export function readPlacement(entry: unknown): Placement | null {
  const { selector, position = 'after', attributes = {} } = (entry ?? {}) as Partial<Record<keyof PlacementRequest, unknown>>;
  if (typeof selector !== 'string' || !selector.trim()) {
    warn('placement skipped: no `selector`.');
    return null;
  }
  try {
    // An empty fragment parses the selector without searching the page.
    document.createDocumentFragment().querySelector(selector);
  } catch {
    warnBy(selector, 'not a valid CSS selector; skipped.');
    return null;
  }
  let where: InsertPosition = POSITIONS.after;
  if (typeof position === 'string' && Object.hasOwn(POSITIONS, position)) where = POSITIONS[position as PlacementPosition];
  else warnBy(selector, `position ${JSON.stringify(position)} is not before, after, first or last; placed after.`);
  const pairs: Array<[string, string]> = [];
  if (attributes && typeof attributes === 'object') {
    for (const [name, value] of Object.entries(attributes)) {
      // An event handler attribute is script: a placement sets the element's settings, never code.
      if (/^on/i.test(name)) warnBy(selector, `attribute ${name} is an event handler; left out.`);
      else if (['string', 'number', 'boolean'].includes(typeof value)) pairs.push([name, String(value)]);
      else warnBy(selector, `attribute ${name} is not a string; left out.`);
    }
  } else warnBy(selector, 'attributes is not an object; none set.');
  return { key: `${where} ${selector}`, selector, where, attributes: pairs };
}

/**
 * The page's placements, kept beside their anchors by one MutationObserver on the document: it
 * places an element as soon as its anchor appears (in the next animation frame, before its paint,
 * so the element's reserved lines move nothing) and moves it to a new anchor when a theme replaces
 * the old one (variant or route changes). It watches while any placement is placed or waiting.
 *
 * The observer's callback only asks for a look; the look runs once per frame, however many batches
 * of changes the frame saw, searches the page only for placements whose anchor left the document or
 * never came, and drops the records of the moves it made itself.
 */
export class Placements {
  readonly #byKey = new Map<string, Placement>();
  readonly #waitMs: number;
  #observer: MutationObserver | null = null;
  #frame = 0;

  constructor(waitMs = ANCHOR_WAIT_MS) {
    this.#waitMs = waitMs;
  }

  /**
   * Takes one queue entry; never throws, whatever the entry is. The selector and position of a
   * placement placed or waiting add nothing again (a tag that fires twice); after a wait given up,
   * they wait afresh.
   */
  add(entry: unknown): void {
    let placement: Placement | null;
    try {
      placement = readPlacement(entry);
    } catch {
      // A getter or a proxy that throws: the page's own script, so its error says nothing to us.
      warn('placement skipped: reading it threw.');
      return;
    }
    if (!placement || this.#byKey.has(placement.key)) return;
    this.#byKey.set(placement.key, placement);
    this.#place(placement);
    if (this.#byKey.has(placement.key) && !placement.anchor) this.#wait(placement);
    this.#observe();
  }

  /** How many placements are placed or waiting (tests). */
  get size(): number {
    return this.#byKey.size;
  }

  #wait(placement: Placement): void {
    let cancelTimer: Cancel | undefined;
    const start = () => {
      cancelTimer = environment().after(this.#waitMs, () => {
        placement.cancelWait = undefined;
        // A look of its own first: a hidden tab runs no animation frames, so the anchor may be there unseen.
        this.#place(placement);
        if (placement.anchor || this.#byKey.get(placement.key) !== placement) return;
        this.#drop(placement);
        warnBy(placement.selector, `no element matched in ${this.#waitMs / 1000} s; nothing placed.`);
      });
    };
    // The clock starts once the page's HTML is all in: until then a late anchor is only unparsed.
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
    else start();
    placement.cancelWait = () => {
      document.removeEventListener('DOMContentLoaded', start);
      cancelTimer?.();
      placement.cancelWait = undefined;
    };
  }

  /** Places, keeps or moves one placement's element; one that cannot be placed is stopped with one warning. */
  #place(placement: Placement): void {
    const { anchor: kept, element, where } = placement;
    try {
      if (kept?.isConnected && element?.isConnected) return;
      // An anchor still in the document is kept, even when the selector now matches another element:
      // the element's own insertion can change what matches (`:last-child`, `:empty`, `:has()`).
      const anchor = kept?.isConnected ? kept : document.querySelector(placement.selector);
      // The offer is gone (a route change): so is its count, until an anchor comes back.
      if (!anchor) {
        element?.remove();
        return;
      }
      // Nothing in <head> or a <template> is rendered, and the root element (no parent) has no siblings.
      if (anchor.closest('head,template') || (!anchor.parentElement && where !== POSITIONS.first && where !== POSITIONS.last)) {
        this.#stop(placement, 'nothing shows there');
        return;
      }
      if (element) {
        const now = environment().now();
        if (!placement.moves || now - placement.movesSince! > 1000) {
          placement.movesSince = now;
          placement.moves = 0;
        }
        if (++placement.moves > MAX_MOVES_PER_SECOND) {
          this.#stop(placement, `moved over ${MAX_MOVES_PER_SECOND} times in a second`);
          return;
        }
      }
      placement.element ??= this.#create(placement);
      anchor.insertAdjacentElement(where, placement.element);
      placement.anchor = anchor;
      placement.cancelWait?.();
    } catch {
      this.#stop(placement, 'it threw');
    }
  }

  /** Stops a placement that cannot be placed, with one warning; an element already placed stays where it is. */
  #stop(placement: Placement, why: string): void {
    this.#drop(placement);
    warnBy(placement.selector, `${why}; stopped.`);
  }

  #create({ selector, attributes }: Placement): HTMLElement {
    const element = document.createElement('live-visitors');
    element.setAttribute('style', RESERVED_LINES);
    // Attributes, never markup: a value is text whatever it contains.
    for (const [name, value] of attributes) {
      try {
        element.setAttribute(name, value);
      } catch {
        warnBy(selector, `attribute ${name} is not a valid name; left out.`);
      }
    }
    return element;
  }

  #observe(): void {
    if (this.#observer || !this.#byKey.size) return;
    this.#observer = new MutationObserver(() => {
      if (this.#frame) return;
      this.#frame = requestAnimationFrame(() => {
        this.#frame = 0;
        for (const placement of this.#byKey.values()) this.#place(placement);
        // The look saw the page as it now is: the records of its own moves are no news (else it would chase them).
        this.#observer?.takeRecords();
      });
    });
    this.#observer.observe(document, { childList: true, subtree: true });
  }

  /** Forgets a placement (its element, if placed, stays where it is); the last one ends the watch. */
  #drop(placement: Placement): void {
    placement.cancelWait?.();
    this.#byKey.delete(placement.key);
    if (this.#byKey.size) return;
    this.#observer?.disconnect();
    this.#observer = null;
  }

  /** Stops watching and waiting (tests); placed elements stay where they are. */
  stop(): void {
    for (const placement of this.#byKey.values()) this.#drop(placement);
  }
}

let shared: Placements | null = null;
/** One set of placements (one observer) for the page, whoever calls. */
function pagePlacements(): Placements {
  shared ??= new Placements();
  return shared;
}

/**
 * Takes every entry of the page's queue (emptying it), then replaces its `push` so that later
 * entries are placed at once. The queue stays a plain array, as Tag Manager's `createQueue` needs.
 */
export function takePlacements(queue: unknown[], placements = pagePlacements()): void {
  queue.push = (...entries: unknown[]) => {
    for (const entry of entries) placements.add(entry);
    return queue.length;
  };
  // `add` never throws: however bad an entry, the ones after it are placed and `push` stays ours.
  for (const entry of queue.splice(0)) placements.add(entry);
}
