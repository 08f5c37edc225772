// The placement chunk (dist/live-visitors-placement.js): loaded by the script-tag file only when
// `window.liveVisitors` has or gets an entry, so pages that write the element themselves never pay for it.
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

/** The README snippet's reserved lines: the sentence appears, or wraps on a phone, and nothing moves. */
const RESERVED_LINES = 'display:block;min-height:2lh';

interface Placement {
  readonly selector: string;
  readonly where: InsertPosition;
  readonly attributes: Array<[string, string]>;
  /** Made at the first placing, then moved to every later anchor: one element per placement. */
  element: HTMLElement | null;
  /** The anchor it stands by now. */
  anchor: Element | null;
  /** Ends the wait for a first anchor; null once placed or given up. */
  cancelWait: (() => void) | null;
}

/** The element's own warnings' channel (and prefix), where the page's developer looks. */
const warn = (message: string) => environment().warn(message);

/** A valid placement from an untrusted queue entry, or null after one warning that says why. */
export function readPlacement(entry: unknown): Placement | null {
  const { selector, position = 'after', attributes = {} } = (entry ?? {}) as Partial<Record<keyof PlacementRequest, unknown>>;
  if (typeof selector !== 'string' || !selector.trim()) {
    warn('placement skipped: it needs `selector`, a CSS selector of the element to place it by.');
    return null;
  }
  try {
    // An empty fragment parses the selector without searching the page.
    document.createDocumentFragment().querySelector(selector);
  } catch {
    warn(`placement skipped: "${selector}" is not a valid CSS selector.`);
    return null;
  }
  let where: InsertPosition = POSITIONS.after;
  if (typeof position === 'string' && Object.hasOwn(POSITIONS, position)) where = POSITIONS[position as PlacementPosition];
  else warn(`placement by "${selector}": position ${JSON.stringify(position)} is not before, after, first or last; placed after.`);
  const pairs: Array<[string, string]> = [];
  if (attributes && typeof attributes === 'object') {
    for (const [name, value] of Object.entries(attributes)) {
      // An event handler attribute is script: a placement sets the element's settings, never code.
      if (/^on/i.test(name)) warn(`placement by "${selector}": attribute ${name} is an event handler; left out.`);
      else if (['string', 'number', 'boolean'].includes(typeof value)) pairs.push([name, String(value)]);
      else warn(`placement by "${selector}": attribute ${name} is not a string; left out.`);
    }
  } else warn(`placement by "${selector}": attributes must be an object of strings; none set.`);
  return { selector, where, attributes: pairs, element: null, anchor: null, cancelWait: null };
}

/**
 * The page's placements, kept beside their anchors by one MutationObserver on the document: it
 * places an element as soon as its anchor appears (in the same task, before the next paint, so
 * the element's reserved lines move nothing) and moves it to a new anchor when a theme replaces
 * the old one (variant or route changes). It watches while any placement is placed or waiting.
 */
export class Placements {
  readonly #byKey = new Map<string, Placement>();
  readonly #waitMs: number;
  #observer: MutationObserver | null = null;

  constructor(waitMs = ANCHOR_WAIT_MS) {
    this.#waitMs = waitMs;
  }

  /**
   * Takes one queue entry. The selector and position of a placement placed or waiting add nothing
   * again (a tag that fires twice); after a wait given up, they wait afresh.
   */
  add(entry: unknown): void {
    const placement = readPlacement(entry);
    if (!placement) return;
    const key = `${placement.where} ${placement.selector}`;
    if (this.#byKey.has(key)) return;
    this.#byKey.set(key, placement);
    this.#place(placement);
    if (!placement.anchor) this.#wait(key, placement);
    this.#observe();
  }

  /** How many placements are placed or waiting (tests). */
  get size(): number {
    return this.#byKey.size;
  }

  #wait(key: string, placement: Placement): void {
    const env = environment();
    let timer: unknown = null;
    const start = () => {
      timer = env.setTimeout(() => {
        placement.cancelWait = null;
        this.#byKey.delete(key);
        warn(`no element matched "${placement.selector}" in ${this.#waitMs / 1000} s of waiting; nothing placed.`);
        if (!this.#byKey.size) this.#disconnect();
      }, this.#waitMs);
    };
    // The clock starts once the page's HTML is all in: until then a late anchor is only unparsed.
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
    else start();
    placement.cancelWait = () => {
      document.removeEventListener('DOMContentLoaded', start);
      // Never called once the timer has run (it sets cancelWait to null): a stale clear cannot stop another timer.
      env.clearTimeout(timer);
      placement.cancelWait = null;
    };
  }

  #place(placement: Placement): void {
    const anchor = document.querySelector(placement.selector);
    // The offer is gone (a route change): so is its count, until an anchor comes back.
    if (!anchor && placement.anchor && !placement.anchor.isConnected) placement.element?.remove();
    // Our own insertion is a mutation too: an element already by this anchor stays as it is.
    if (!anchor || (anchor === placement.anchor && placement.element?.isConnected)) return;
    placement.element ??= this.#create(placement);
    anchor.insertAdjacentElement(placement.where, placement.element);
    placement.anchor = anchor;
    placement.cancelWait?.();
  }

  #create({ selector, attributes }: Placement): HTMLElement {
    const element = document.createElement('live-visitors');
    element.setAttribute('style', RESERVED_LINES);
    // Attributes, never markup: a value is text whatever it contains.
    for (const [name, value] of attributes) {
      try {
        element.setAttribute(name, value);
      } catch {
        warn(`placement by "${selector}": "${name}" is not a valid attribute name; left out.`);
      }
    }
    return element;
  }

  #observe(): void {
    if (this.#observer || !this.#byKey.size) return;
    this.#observer = new MutationObserver(() => {
      for (const placement of this.#byKey.values()) this.#place(placement);
    });
    this.#observer.observe(document, { childList: true, subtree: true });
  }

  #disconnect(): void {
    this.#observer?.disconnect();
    this.#observer = null;
  }

  /** Stops watching and waiting (tests); placed elements stay where they are. */
  stop(): void {
    for (const placement of this.#byKey.values()) placement.cancelWait?.();
    this.#byKey.clear();
    this.#disconnect();
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
  for (const entry of queue.splice(0)) placements.add(entry);
  queue.push = (...entries: unknown[]) => {
    for (const entry of entries) placements.add(entry);
    return queue.length;
  };
}
