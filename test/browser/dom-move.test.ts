import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { type CountingEmulator, startCountingEmulator } from './support/counting-emulator.js';
import { shopPage } from './support/shop-page.js';
import { clockText, SimulatedTime } from './support/simulated-time.js';
import { type StaticSite, startStaticSite } from './support/static-site.js';
import { textTable } from './support/text-table.js';
import { sentence } from './support/widget.js';
import { nameWidgets, onWidgets, readTrackedWidgets, type TrackedWidget, trackWidgets } from './support/widget-events.js';

/**
 * A move in the DOM is no news. Two elements that have their first report are moved, one at a
 * time and both at once, to another parent and into the shadow root of another custom element,
 * also while a poll is under way; then the service's counts change. A move fires no event and
 * sends no request, the element keeps showing its count, and its feed keeps asking once per
 * interval: each element fires one `live-visitors-update` per report, none for a move.
 *
 * Each element is the only one of its website on the page (A shows demo-shop, B small-shop), so
 * every move leaves its feed without a subscriber for a moment, as on a page with one widget.
 * The built bundle in Chromium, the emulator over real HTTP, simulated time (interval 60 s).
 */

type Name = 'A' | 'B';

const WEBSITES: Record<Name, { id: string; token: string; before: number; after: number }> = {
  A: { id: 'demo-shop', token: 'demo-token', before: 23, after: 31 },
  B: { id: 'small-shop', token: 'small-shop-token', before: 12, after: 17 },
};
const NAMES: Name[] = ['A', 'B'];
const INTERVAL_MS = 60_000;
const STEP_MS = 10_000;
const END_MS = 3 * INTERVAL_MS;
/** The services' counts change half-way through the first interval; the 1:00 polls bring them. */
const COUNTS_CHANGE_AT = 30_000;
/** Long enough that a held answer cannot arrive between a move and the look at its effect. */
const HELD_ANSWER_SECONDS = 3;

/** Where the elements can go: an aside, and the shadow root of a `<shop-card>`. */
const PARENTS = {
  aside: "document.querySelector('#elsewhere')",
  card: "document.querySelector('shop-card').shadowRoot.querySelector('.card-body')",
  'offer 1': "document.querySelectorAll('.offer')[0]",
  'offer 2': "document.querySelectorAll('.offer')[1]",
};
type Place = keyof typeof PARENTS;

/** Where an element finds itself in each place. */
const PLACE_SEEN: Record<Place, string> = {
  aside: 'document',
  card: 'shadow root of <shop-card>',
  'offer 1': 'document',
  'offer 2': 'document',
};

interface Move {
  /** Simulated time of the move. */
  at: number;
  /** The elements moved by one `append`. */
  widgets: Name[];
  to: Place;
  /** Made while the polls of this moment are under way (the service holds them for a few real seconds). */
  whileAsking?: boolean;
}

const MOVES: Move[] = [
  { at: 0, widgets: ['A'], to: 'aside' },
  { at: 0, widgets: ['B'], to: 'card' },
  { at: 0, widgets: ['A'], to: 'card' },
  { at: 0, widgets: ['A', 'B'], to: 'aside' },
  { at: 30_000, widgets: ['A'], to: 'offer 2' },
  { at: 30_000, widgets: ['B'], to: 'card' },
  { at: INTERVAL_MS, widgets: ['A', 'B'], to: 'card' },
  { at: 90_000, widgets: ['A'], to: 'offer 1' },
  // A move must neither abort the request under way nor start another when it rejoins the feed.
  { at: 2 * INTERVAL_MS, widgets: ['A', 'B'], to: 'aside', whileAsking: true },
  { at: 2 * INTERVAL_MS, widgets: ['B'], to: 'card', whileAsking: true },
  { at: 150_000, widgets: ['B'], to: 'aside' },
  { at: 150_000, widgets: ['A', 'B'], to: 'card' },
];

/** Two offers of different shops, an aside, and a card with an open shadow root. */
function pageWithPlacesToMove(apiBase: string): string {
  const offer = (name: Name) =>
    shopPage({ apiBase, websiteId: WEBSITES[name].id, token: WEBSITES[name].token }).match(/<p class="offer">.*<\/p>/)![0];
  return shopPage({ apiBase }).replace(
    /<body>[\s\S]*<\/body>/,
    `<body>
    ${offer('A')}
    ${offer('B').replace('Offer 1', 'Offer 2')}
    <aside id="elsewhere"></aside>
    <shop-card></shop-card>
    <script>
      customElements.define('shop-card', class extends HTMLElement {
        constructor() {
          super();
          this.attachShadow({ mode: 'open' }).innerHTML = '<div class="card-body"></div>';
        }
      });
    </script>
  </body>`,
  );
}

let generation = 0;

/** Makes each website count exactly this many visitors (and clears any fault). */
function setCounts(counts: Record<Name, number>): void {
  service.setVisitors(WEBSITES.A.id, counts.A);
  generation += 1;
  for (let index = 0; index < counts.B; index += 1) service.emulator.recordPageview(WEBSITES.B.id, `visitor-${generation}-${index}`);
}

let browser: Browser;
let site: StaticSite;
let service: CountingEmulator;
const log: Array<Record<string, string>> = [];

beforeAll(async () => {
  [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startCountingEmulator()]);
  site.put('/offers-with-card.html', pageWithPlacesToMove(service.url));
});

afterAll(async () => {
  if (log.length > 0) console.log(textTable('Moves of A (demo-shop) and B (small-shop), interval 60 s, simulated time:', log));
  await Promise.all([browser?.close(), site?.close(), service?.close()]);
});

const eventsOf = (widgets: TrackedWidget[]) => widgets.map(({ name, updates, errors }) => ({ name, updates, errors: errors.length }));

describe('elements moved in the DOM', () => {
  let context: BrowserContext;
  let time: SimulatedTime;
  let page: Page;
  const requestTimes: number[] = [];
  const pageErrors: string[] = [];
  let noted = 0;

  beforeAll(async () => {
    setCounts({ A: WEBSITES.A.before, B: WEBSITES.B.before });
    noted = service.realtimeRequests;
    context = await browser.newContext();
    await trackWidgets(context);
    time = await SimulatedTime.install(context);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${site.url}/offers-with-card.html`);
    await nameWidgets(page);
    await settle();
  });

  afterAll(() => context?.close());

  /** With `holding`, requests the service holds count as settled: their answers are still to come. */
  const settleOptions = (holding: boolean) => (holding ? { heldAtService: () => service.heldRequests } : {});

  async function settle(holding = false): Promise<void> {
    await time.settle(settleOptions(holding));
    noteRequests();
  }

  function noteRequests(): void {
    for (; noted < service.realtimeRequests; noted += 1) requestTimes.push(time.elapsedMs);
  }

  async function advanceTo(at: number, holding = false): Promise<void> {
    if (at > time.elapsedMs) await time.advance(at - time.elapsedMs, STEP_MS, noteRequests, settleOptions(holding));
  }

  it('fire no event and send no request on a move, keep their counts shown, and fire one update per report', async () => {
    expect(eventsOf(await readTrackedWidgets(page))).toEqual(NAMES.map((name) => ({ name, updates: [WEBSITES[name].before], errors: 0 })));
    expect(requestTimes.map(clockText)).toEqual(['0:00', '0:00']);

    const places: Record<Name, Place> = { A: 'offer 1', B: 'offer 2' };
    let countsChanged = false;
    for (const [index, move] of MOVES.entries()) {
      if (move.at >= COUNTS_CHANGE_AT && !countsChanged) {
        setCounts({ A: WEBSITES.A.after, B: WEBSITES.B.after });
        countsChanged = true;
      }
      const holding = move.whileAsking ?? false;
      if (holding && service.heldRequests === 0) service.emulator.setFault({ kind: 'slow', delaySeconds: HELD_ANSWER_SECONDS });
      await advanceTo(move.at, holding);
      if (holding) expect(service.heldRequests, `${clockText(move.at)}: both polls under way`).toBe(2);
      const before = await readTrackedWidgets(page);
      const requestsBefore = requestTimes.length;

      await onWidgets(page, move.widgets, `${PARENTS[move.to]}.append(...widgets)`);
      for (const moved of move.widgets) places[moved] = move.to;
      await settle(holding);
      const after = await readTrackedWidgets(page);

      // No event and no request for a move; the same state, count and sentence, in the new place.
      const what = `${clockText(move.at)}: ${move.widgets.join(' and ')} to ${move.to}`;
      expect(eventsOf(after), what).toEqual(eventsOf(before));
      expect(requestTimes.length, what).toBe(requestsBefore);
      expect(
        after.map(({ name, state, count, text, place }) => ({ name, state, count, text, place })),
        what,
      ).toEqual(
        before.map(({ name, count }) => ({ name, state: 'live', count, text: sentence(count!), place: PLACE_SEEN[places[name as Name]] })),
      );
      log.push({
        at: clockText(move.at),
        moved: `${move.widgets.join(' and ')}${holding ? ' (polls under way)' : ''}`,
        to: PLACE_SEEN[move.to] === 'document' ? move.to : PLACE_SEEN[move.to],
        'A, B show': after.map((widget) => `${widget.state} ${widget.count}`).join(', '),
        'updates A / B': after.map((widget) => widget.updates.join(' ')).join(' / '),
        'requests so far': requestTimes.map(clockText).join(' '),
      });
      if (holding && !MOVES[index + 1]?.whileAsking) {
        // The held answers arrive, once each, to the elements wherever they are now.
        await settle();
        service.emulator.clearFault();
      }
    }

    await advanceTo(END_MS);
    // One request per interval and website, as if nothing had moved; one update per report.
    expect(requestTimes.map(clockText)).toEqual(['0:00', '0:00', '1:00', '1:00', '2:00', '2:00', '3:00', '3:00']);
    const last = await readTrackedWidgets(page);
    expect(eventsOf(last)).toEqual(
      NAMES.map((name) => {
        const { before, after } = WEBSITES[name];
        return { name, updates: [before, after, after, after], errors: 0 };
      }),
    );
    expect(last.map(({ state, count, text }) => ({ state, count, text }))).toEqual(
      NAMES.map((name) => ({ state: 'live', count: WEBSITES[name].after, text: sentence(WEBSITES[name].after) })),
    );
    expect(pageErrors).toEqual([]);
  });
});
