import { fixture } from '@open-wc/testing';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import '../src/define.js';
import type { LiveVisitorsImpressionDetail } from '../src/events.js';
import { type Variant, variantFor } from '../src/holdout.js';
import type { LiveVisitors } from '../src/live-visitors.js';
import { type Environment, setEnvironment } from '../src/realtime/environment.js';
import { closePage, openElementPage, settle } from './support/element-page.js';
import { FakeBrowser, type FakeTab, freshWebsiteId } from './support/fake-browser.js';
import type { FakeService } from './support/fake-service.js';

const MINUTE = 60_000;

let service: FakeService;
let browser: FakeBrowser;
let tab: FakeTab;
let websiteId: string;
let restoreEnvironment: () => void;

// The element loads the experiments file when it first shows a count; loading a module takes real
// time, which fake time does not wait for: it is in before the tests, as a browser's cache has it.
beforeAll(() => import('../src/experiments.js'));

beforeEach(() => {
  // Every draw must be asked for by a test: an unexpected one fails.
  ({ service, browser, tab, websiteId, restoreEnvironment } = openElementPage({ random: noDraw }));
});

afterEach(() => closePage(restoreEnvironment));

function noDraw(): number {
  throw new Error('drew a number where none was expected');
}

function useTab(next: FakeTab): FakeTab {
  restoreEnvironment();
  tab = next;
  restoreEnvironment = setEnvironment(tab.env);
  return tab;
}

/** A random() that answers `draws` in turn, then refuses. */
function drawing(...draws: number[]): Pick<Environment, 'random'> {
  return { random: () => draws.shift() ?? noDraw() };
}

const storageKey = (id: string) => `live-visitors:holdout:${id}`;

/**
 * `variantFor` as a new page load in `tab` has it. holdout.js keeps this page's draws in a
 * module-level Map (so elements agree even without storage); within one module that Map alone
 * would make "tabs and page loads agree" pass with storage broken. A fresh copy of the module
 * graph starts with nothing in memory and only what the browser's storage kept, as a new page does.
 */
async function variantForOnNewPage(pageTab: FakeTab): Promise<typeof variantFor> {
  vi.resetModules();
  const page = await import('../src/realtime/environment.js');
  const holdout = await import('../src/holdout.js');
  page.setEnvironment(pageTab.env);
  return holdout.variantFor;
}

async function widget(attributes = '', id = websiteId): Promise<LiveVisitors> {
  const host = await fixture<HTMLElement>(
    `<div><live-visitors website-id="${id}" api-base="https://a.example" ${attributes}><span slot="fallback">Limited stock</span></live-visitors></div>`,
  );
  const el = host.querySelector('live-visitors')!;
  await settle(el);
  return el;
}

describe('a browser keeps its variant for a website', () => {
  it('across the elements of a page', async () => {
    useTab(browser.openTab(drawing(0.1, 0.95, 0.95)));
    const first = await widget('holdout="0.2"');
    const second = await widget('holdout="0.2"');
    const otherSite = await widget('holdout="0.2"', freshWebsiteId());
    expect([first.variant, second.variant, otherSite.variant]).toEqual(['holdout', 'holdout', 'shown']);
  });

  it.each([
    ['unavailable', () => undefined],
    [
      'blocked',
      () => {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    ],
  ])('across the elements of a page where storage is %s', async (_, storage) => {
    useTab(browser.openTab({ ...drawing(0.1, 0.95), storage }));
    const first = await widget('holdout="0.2"');
    const second = await widget('holdout="0.2"');
    expect([first.variant, second.variant]).toEqual(['holdout', 'holdout']);
  });

  it.each([
    [0.1, 'holdout'],
    [0.95, 'shown'],
  ] as const)('across page loads and tabs (first draw %d: %s)', async (draw, variant) => {
    const opposite = draw < 0.2 ? 0.95 : 0.1;
    const firstPage = await variantForOnNewPage(browser.openTab(drawing(draw)));
    expect(firstPage(websiteId, 0.2)).toBe(variant);
    // A later page (a reload, or another tab: all they share is storage) whose own draw would say the opposite.
    const laterPage = await variantForOnNewPage(browser.openTab(drawing(opposite)));
    expect(laterPage(websiteId, 0.2)).toBe(variant);
    // Another browser has its own draw.
    const otherBrowser = await variantForOnNewPage(new FakeBrowser(service).openTab(drawing(opposite)));
    expect(otherBrowser(websiteId, 0.2)).not.toBe(variant);
  });

  it('stores its draw under the website id, never the token', async () => {
    useTab(browser.openTab(drawing(0.375)));
    const el = await widget('holdout="0.2" token="secret-token-123"');
    expect(el.variant).toBe('shown');
    expect(browser.storage.getItem(storageKey(websiteId))).toBe('0.375');
    expect(browser.storedText()).not.toContain('secret-token-123');
  });

  it.each(['abc', '1', '-0.5'])('draws afresh over a stored %s (junk or out of range)', (junk) => {
    browser.storage.setItem(storageKey(websiteId), junk);
    useTab(browser.openTab(drawing(0.1)));
    expect(variantFor(websiteId, 0.2)).toBe('holdout');
    expect(browser.storage.getItem(storageKey(websiteId))).toBe('0.1');
  });
});

describe('the holdout share', () => {
  it.each([
    // attribute, draw, variant
    ['0.2', 0.19, 'holdout'],
    ['0.2', 0.2, 'shown'],
    ['0.9', 0.89, 'holdout'],
    // Above 0.9 behaves as 0.9: a tenth of browsers always see the sentence.
    ['1', 0.89, 'holdout'],
    ['1', 0.9, 'shown'],
    ['5', 0.95, 'shown'],
    ['Infinity', 0.89, 'holdout'],
    ['Infinity', 0.9, 'shown'],
  ] as const)('holdout="%s" with a draw of %d: %s', async (holdout, draw, variant) => {
    browser.storage.setItem(storageKey(websiteId), String(draw));
    const el = await widget(`holdout="${holdout}"`);
    expect(el.variant).toBe(variant);
  });

  // A draw here would throw (see beforeEach): without one, not even a draw of 0 could be held out.
  it.each(['0', '-0.3', 'abc', ''])('holdout="%s" holds no one out, and draws nothing', async (holdout) => {
    const el = await widget(`holdout="${holdout}"`);
    expect(el.variant).toBe('shown');
    expect(browser.storage.getItem(storageKey(websiteId))).toBeNull();
    expect(el.shadowRoot!.querySelector('[part="text"]')).not.toBeNull();
  });
});

describe('a held-out element', () => {
  beforeEach(() => {
    browser.storage.setItem(storageKey(websiteId), '0.1');
  });

  it('shows the fallback (no sentence, no disclosure), yet counts, has a state and fires updates', async () => {
    const updates: number[] = [];
    document.addEventListener('live-visitors-update', (event) => updates.push(event.detail.count), { once: true });
    const el = await widget('holdout="0.2"');
    const root = el.shadowRoot!;
    expect(el.variant).toBe('holdout');
    expect([root.querySelector('slot[name="fallback"]') !== null, root.querySelector('[part="base"], [part="disclosure"]')]).toEqual([
      true,
      null,
    ]);
    expect([el.count, el.getAttribute('state'), updates]).toEqual([23, 'live', [23]]);
    // Without the holdout, the same element shows the sentence: the holdout, not the count, hid it.
    el.holdout = 0;
    await settle(el);
    expect(root.querySelector('[part="text"]')!.textContent).toBe('23 people are browsing this shop right now');
  });

  it('fires its impression exactly when a shown element would, with variant "holdout"', async () => {
    const shownSite = freshWebsiteId();
    browser.storage.setItem(storageKey(shownSite), '0.95');
    const timeline: Array<[number, LiveVisitorsImpressionDetail]> = [];
    const start = Date.now();
    const hear = (event: CustomEvent<LiveVisitorsImpressionDetail>) => timeline.push([Date.now() - start, event.detail]);
    document.addEventListener('live-visitors-impression', hear);
    try {
      service.count = 3;
      const heldOut = await widget('holdout="0.2" min="5"');
      const shown = await widget('holdout="0.2" min="5"', shownSite);
      tab.setHalfVisible('all', true);
      // Below min: neither counts as seen.
      await settle(heldOut, 30_000);
      expect(timeline).toEqual([]);
      service.count = 6;
      await settle(heldOut, MINUTE);
      expect([heldOut.variant, shown.variant]).toEqual(['holdout', 'shown']);
      expect(timeline).toEqual([
        [MINUTE + 1000, { count: 6, websiteId, variant: 'holdout', windowMinutes: 3 }],
        [MINUTE + 1000, { count: 6, websiteId: shownSite, variant: 'shown', windowMinutes: 3 }],
      ]);
    } finally {
      document.removeEventListener('live-visitors-impression', hear);
    }
  });
});

describe('while the experiments file loads', () => {
  /**
   * A fresh copy of the loader, as on a new page: the experiments file is not in yet. Its modules
   * are fresh too, so it reads the browser's own environment (happy-dom's localStorage).
   */
  async function freshLoader() {
    vi.resetModules();
    return import('../src/experiments-on-demand.js');
  }

  afterEach(() => window.localStorage.removeItem(storageKey(websiteId)));

  it('the variant is "undecided" (neither group), and decidedVariant resolves with the group once the file is in', async () => {
    window.localStorage.setItem(storageKey(websiteId), '0.1');
    const { currentVariant, decidedVariant } = await freshLoader();
    const host = { holdout: 0.2, websiteId, requestUpdate: vi.fn() } as unknown as Parameters<typeof currentVariant>[0];
    expect(currentVariant(host)).toBe('undecided');
    expect(await decidedVariant(host)).toBe('holdout');
    expect(currentVariant(host)).toBe('holdout');
    // The element that asked first updates once the file is in, to show what its variant allows.
    expect(host.requestUpdate).toHaveBeenCalled();
  });

  it('without a holdout the variant is "shown" at once, and no file is loaded for it', async () => {
    const { currentVariant, decidedVariant } = await freshLoader();
    const host = { holdout: 0, websiteId, requestUpdate: vi.fn() } as unknown as Parameters<typeof currentVariant>[0];
    expect(currentVariant(host)).toBe('shown');
    expect(await decidedVariant(host)).toBe('shown');
    expect(host.requestUpdate).not.toHaveBeenCalled();
  });

  it('an element answers the same through its variant and decidedVariant properties', async () => {
    browser.storage.setItem(storageKey(websiteId), '0.95');
    const el = await widget('holdout="0.2"');
    expect([el.variant, await el.decidedVariant]).toEqual(['shown', 'shown']);
  });
});

describe('over 10,000 browsers', () => {
  /** mulberry32: a small seeded generator, so the share is the same on every run. */
  function seededRandom(seed: number): () => number {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('holds out 20 % (±1.5 points) for holdout=0.2, each browser keeping its variant', async () => {
    // One website id per simulated browser: each has its own draw, as each browser has.
    const ids = Array.from({ length: 10_000 }, () => freshWebsiteId('browser'));
    useTab(browser.openTab({ random: seededRandom(2026) }));
    const variants = ids.map((id) => variantFor(id, 0.2));
    const share = (of: Variant[]) => of.filter((variant) => variant === 'holdout').length / of.length;
    expect(share(variants)).toBeGreaterThanOrEqual(0.185);
    expect(share(variants)).toBeLessThanOrEqual(0.215);

    useTab(browser.openTab({ random: noDraw }));
    expect(ids.map((id) => variantFor(id, 0.2))).toEqual(variants);
    const laterPage = await variantForOnNewPage(browser.openTab({ random: noDraw }));
    expect(ids.map((id) => laterPage(id, 0.2))).toEqual(variants);
    // A larger holdout only adds browsers to it.
    const wider = ids.map((id) => variantFor(id, 0.3));
    expect(share(wider)).toBeGreaterThan(0.285);
    expect(variants.every((variant, index) => variant === 'shown' || wider[index] === 'holdout')).toBe(true);
  });
});
