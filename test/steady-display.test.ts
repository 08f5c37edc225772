import { fixture } from '@open-wc/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import '../src/define.js';
import type { LiveVisitors } from '../src/live-visitors.js';
import { STEADY_HOLD_MS, SteadyDisplay } from '../src/steady-display.js';
import { closePage, openElementPage } from './support/element-page.js';
import type { FakeTab } from './support/fake-browser.js';
import type { FakeService } from './support/fake-service.js';

const MINUTE = 60_000;

describe('SteadyDisplay', () => {
  /** One call per row: [minute, count, min, expected]; every row of a table goes to one display. */
  type Row = [minute: number, count: number | null, min: number, shows: boolean];
  const replay = (rows: Row[]) => {
    const display = new SteadyDisplay();
    return rows.map(([minute, count, min]) => display.shows(count, min, minute * MINUTE));
  };

  it('holds for three minutes', () => {
    expect(STEADY_HOLD_MS).toBe(3 * MINUTE);
  });

  it.each<[string, Row[]]>([
    ['the first count at or above min shows at once', [[0, 6, 5, true]]],
    [
      'a first count below min hides, and the next one above shows at once',
      [
        [0, 4, 5, false],
        [1, 6, 5, true],
      ],
    ],
    [
      'a count below min keeps the sentence up for three minutes after it appeared',
      [
        [0, 6, 5, true],
        [1, 4, 5, true],
        [2, 4, 5, true],
        [3, 4, 5, false],
      ],
    ],
    [
      'a sentence up for longer than the hold hides at the first low count',
      [
        [0, 6, 5, true],
        [10, 4, 5, false],
      ],
    ],
    [
      'once hidden by a low count, it comes back only after three minutes away',
      [
        [0, 6, 5, true],
        [3, 4, 5, false],
        [4, 6, 5, false],
        [5, 6, 5, false],
        [6, 6, 5, true],
      ],
    ],
    [
      'a count alternating across min switches at most once per hold',
      [
        [0, 6, 5, true],
        [1, 4, 5, true],
        [2, 6, 5, true],
        [3, 4, 5, false],
        [4, 6, 5, false],
        [5, 4, 5, false],
        [6, 6, 5, true],
        [7, 4, 5, true],
        [8, 6, 5, true],
        [9, 4, 5, false],
      ],
    ],
    [
      'a 0 hides at once, even within the hold',
      [
        [0, 6, 5, true],
        [1, 0, 5, false],
      ],
    ],
    [
      'no count hides at once, even within the hold',
      [
        [0, 6, 5, true],
        [1, null, 5, false],
      ],
    ],
    [
      'after no count, the next count shows at once (with a second look at "no count" in between)',
      [
        [0, 6, 5, true],
        [1, null, 5, false],
        [1.5, null, 5, false],
        [2, 6, 5, true],
      ],
    ],
    [
      'a raised min hides at once, within the hold',
      [
        [0, 6, 5, true],
        [1, 6, 7, false],
      ],
    ],
    [
      'a lowered min shows at once, within the hold',
      [
        [0, 6, 5, true],
        [3, 4, 5, false],
        [4, 4, 3, true],
      ],
    ],
  ])('%s', (_, rows) => {
    expect(replay(rows)).toEqual(rows.map((row) => row[3]));
  });

  // The rule says "the next count shows at once" after no count. The switch to hidden stamps the
  // time of that switch, though, so a count arriving at the very next call waits out the hold.
  it('after no count, the very next count shows at once', () => {
    const rows: Row[] = [
      [0, 6, 5, true],
      [1, null, 5, false],
      [2, 6, 5, true],
    ];
    expect(replay(rows)).toEqual(rows.map((row) => row[3]));
  });
});

describe('<live-visitors> around min', () => {
  let service: FakeService;
  let tab: FakeTab;
  let websiteId: string;
  let restoreEnvironment: () => void;

  beforeEach(() => {
    ({ service, tab, websiteId, restoreEnvironment } = openElementPage());
  });

  afterEach(() => closePage(restoreEnvironment));

  async function settle(el: LiveVisitors, ms = 0) {
    await vi.advanceTimersByTimeAsync(ms);
    await el.updateComplete;
  }

  interface Frame {
    minute: number;
    text: string | null;
    count: number | null;
  }

  /** The element, and every frame it rendered (a test controller sees each update, so no blink is missed). */
  async function watchedWidget(attributes: string) {
    const host = await fixture<HTMLElement>(
      `<div><live-visitors website-id="${websiteId}" api-base="https://a.example" ${attributes}></live-visitors></div>`,
    );
    const el = host.querySelector('live-visitors')!;
    const start = Date.now();
    const frames: Frame[] = [];
    el.addController({
      hostUpdated: () => {
        const text = el.shadowRoot!.querySelector('[part="text"]')?.textContent ?? null;
        frames.push({ minute: (Date.now() - start) / MINUTE, text, count: el.count });
      },
    });
    await settle(el);
    return { el, frames };
  }

  /** Minutes at which the sentence appeared or went away. */
  const switches = (frames: Frame[]) =>
    frames.filter((frame, index) => index > 0 && (frame.text === null) !== (frames[index - 1]!.text === null)).map((frame) => frame.minute);

  it('a count alternating 6, 4, 6, 4… around min=5 switches once per 3 minutes, always showing the latest count', async () => {
    service.count = 6;
    const { el, frames } = await watchedWidget('min="5"');
    for (let minute = 1; minute <= 30; minute++) {
      service.count = minute % 2 ? 4 : 6;
      await settle(el, MINUTE);
    }
    expect(service.requests).toHaveLength(31);
    // Appears at 0, and flips every 3 minutes after: 10 switches in 30 minutes, never sooner.
    expect(frames[0]!.text).not.toBeNull();
    expect(switches(frames)).toEqual([3, 6, 9, 12, 15, 18, 21, 24, 27, 30]);
    // While held up by the rule, the sentence says the latest count, low as it is.
    expect(frames.find((frame) => frame.minute === 1)!.text).toBe('4 people are browsing this shop right now');
    for (const frame of frames) if (frame.text !== null) expect(frame.text).toBe(`${frame.count} people are browsing this shop right now`);
  });

  it('a 0 hides the sentence at once: "0 people" never shows', async () => {
    service.count = 6;
    const { el, frames } = await watchedWidget('min="5"');
    service.count = 0;
    await settle(el, MINUTE);
    expect(el.count).toBe(0);
    expect(switches(frames)).toEqual([1]);
    expect(frames.map((frame) => frame.text).filter((text) => text?.startsWith('0 '))).toEqual([]);
  });

  it('a raised min hides at once, and a lowered one shows at once, within the hold', async () => {
    service.count = 6;
    const { el, frames } = await watchedWidget('min="5"');
    await settle(el, MINUTE);
    el.min = 7;
    await settle(el);
    expect(switches(frames)).toEqual([1]);
    await settle(el, MINUTE);
    el.min = 6;
    await settle(el);
    expect(switches(frames)).toEqual([1, 2]);
  });

  // The rule: "no count at all (none yet, or too old) hides it too, and the next count shows at
  // once". Here the count outlives max-age while the tab is hidden (no polls), and the poll made
  // when the tab is shown again, two minutes later, is the next update.
  it('after the count outlived max-age, the next count shows at once', async () => {
    service.count = 6;
    const { el, frames } = await watchedWidget('min="5" max-age="120"');
    tab.setVisible(false);
    await settle(el, 2 * MINUTE + 1000);
    expect([el.getAttribute('state'), el.count]).toEqual(['unavailable', null]);
    await settle(el, 2 * MINUTE);
    tab.setVisible(true);
    await settle(el);
    expect(service.requests).toHaveLength(2);
    expect(el.count).toBe(6);
    expect(frames.at(-1)!.text).toBe('6 people are browsing this shop right now');
  });
});
