// `npx tsx bench/placement-observer.ts`: the placement observer's share of the main thread in real
// Chromium (issue 29 §1), the placement code before issue 29's fix against the code in the tree,
// in the same run. A 5,000-element product listing changes 1,000 times a second, each change
// delivered to MutationObservers as a batch of its own (a busy lazy loader or carousel), while
// placements wait for anchors that never come: one `:has()` selector, then 500 plain ones.
//
// Observer share: the time spent in the placement code's MutationObserver callbacks and in the
// animation frames it asks for, over the window's wall-clock time, timed inside the page (a
// cross-origin-isolated page, so performance.now() is precise to 5 µs). "Main thread busy" is the
// renderer's whole task time (DevTools' TaskDuration) over the same window, the changes' own cost
// and their frames included; "batches/s" is how many change batches the page managed (a busy main
// thread falls behind the 1,000 asked for).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import type { Browser, CDPSession } from 'playwright-core';
import { launchChromium } from '../test/browser/support/chromium.js';
import { printTable, ratio } from './table.js';

/** The tree just before issue 29's placement fix (its tests were committed first, at this commit). */
const BASELINE_COMMIT = 'e137272';
const WINDOW_MS = 2000;
const RUNS = 5;
/** Served by the bench itself (page.route), never fetched; localhost, so a secure context that can be cross-origin isolated. */
const PAGE_URL = 'http://localhost:9/placement-bench.html';
const BATCHES_PER_SECOND = 1000;

type Variant = 'none' | 'before' | 'after';
interface Case {
  name: string;
  selectors: string[];
}

const CASES: Case[] = [
  { name: 'one waiting :has() selector', selectors: ['main:has(.sold-out-banner) .card form[action*="/cart/add"]'] },
  { name: '500 waiting placements', selectors: Array.from({ length: 500 }, (_, index) => `.product-${index} .quick-buy`) },
];

/** The placement module of `source` as a classic script that sets `window.Placement`. */
async function bundle(source: string): Promise<string> {
  const result = await build({
    stdin: { contents: source, resolveDir: 'src', sourcefile: 'placement.ts', loader: 'ts' },
    bundle: true,
    format: 'iife',
    globalName: 'Placement',
    minify: true,
    write: false,
    target: 'es2022',
  });
  return result.outputFiles[0]!.text;
}

/** 500 product cards of ten elements each: 5,000 elements, as a long collection page. */
function listingPage(): string {
  const cards = Array.from(
    { length: 500 },
    (_, index) =>
      `<article class="card"><h2>Item ${index}</h2><p class="price">€${index}</p><ul><li>a</li><li>b</li><li>c</li></ul><form action="/cart/add"><button>Add</button></form><span></span></article>`,
  ).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Listing</title></head>
    <body><main>${cards}</main><aside id="churn"></aside></body></html>`;
}

/**
 * Page source: changes the page `perSecond` times a second for `windowMs`, each change in a batch
 * of its own (an await between changes lets the observers' microtask run), without spinning: the
 * main thread is idle between ticks, so the task time measured is work, not a busy loop. A string,
 * not a function: tsx would wrap a function's inner functions in a helper the page does not have.
 */
const CHURN = `({ windowMs, perSecond }) => new Promise((resolve) => {
  const box = document.querySelector('#churn');
  const started = performance.now();
  let batches = 0;
  const tick = async () => {
    // As many changes as are due by now: the rate holds while the main thread keeps up.
    const due = Math.ceil(((performance.now() - started) * perSecond) / 1000) - batches;
    for (let change = 0; change < due; change += 1) {
      box.append(document.createElement('span'));
      if (box.childElementCount > 20) box.firstElementChild.remove();
      batches += 1;
      await null;
    }
    if (performance.now() - started < windowMs) setTimeout(tick, 1);
    else resolve(batches);
  };
  tick();
})`;

/** The renderer's main-thread task time so far (s), from the page's DevTools session. */
async function taskSeconds(session: CDPSession): Promise<number> {
  const { metrics } = await session.send('Performance.getMetrics');
  return metrics.find(({ name }) => name === 'TaskDuration')!.value;
}

/**
 * Init script (page source, as `CHURN`): times every MutationObserver callback and animation frame
 * callback into `window.observerMs`. The churn uses neither, so what it times is the placement code's.
 */
const TIME_OBSERVER_WORK = `{
  window.observerMs = 0;
  const timed = (callback) => (...args) => {
    const started = performance.now();
    try {
      callback(...args);
    } finally {
      window.observerMs += performance.now() - started;
    }
  };
  const Native = MutationObserver;
  window.MutationObserver = class extends Native {
    constructor(callback) {
      super(timed(callback));
    }
  };
  const frame = requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) => frame(timed(callback));
}`;

interface Sample {
  observer: number;
  busy: number;
  batchesPerSecond: number;
}

async function measure(browser: Browser, code: Record<Variant, string>, variant: Variant, selectors: string[]): Promise<Sample> {
  const context = await browser.newContext({ viewport: { width: 800, height: 700 } });
  const page = await context.newPage();
  try {
    // Cross-origin isolated, so performance.now() is precise enough to time one callback.
    await page.route(PAGE_URL, (route) =>
      route.fulfill({
        body: listingPage(),
        contentType: 'text/html',
        headers: { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' },
      }),
    );
    await page.addInitScript(TIME_OBSERVER_WORK);
    await page.goto(PAGE_URL);
    if (!(await page.evaluate(() => crossOriginIsolated))) throw new Error('the bench page is not cross-origin isolated');
    if (variant !== 'none') {
      await page.addScriptTag({ content: code[variant] });
      await page.evaluate((list) => {
        const placement = (window as unknown as { Placement: { takePlacements(queue: unknown[]): void } }).Placement;
        placement.takePlacements(list.map((selector) => ({ selector, position: 'after' })));
      }, selectors);
    }
    const session = await context.newCDPSession(page);
    await session.send('Performance.enable');
    // Let the page settle (layout, the placements' first look) before the window opens.
    await page.waitForTimeout(300);
    await page.evaluate(() => {
      (window as unknown as { observerMs: number }).observerMs = 0;
    });
    const taskBefore = await taskSeconds(session);
    const wallBefore = Date.now();
    const batches: number = await page.evaluate(`(${CHURN})(${JSON.stringify({ windowMs: WINDOW_MS, perSecond: BATCHES_PER_SECOND })})`);
    const observerMs = await page.evaluate(() => (window as unknown as { observerMs: number }).observerMs);
    const taskAfter = await taskSeconds(session);
    const wall = (Date.now() - wallBefore) / 1000;
    return { observer: observerMs / 1000 / wall, busy: (taskAfter - taskBefore) / wall, batchesPerSecond: batches / wall };
  } finally {
    await context.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percent = (share: number) => `${(100 * share).toFixed(1)}%`;

async function benchPlacementObserver(): Promise<void> {
  const baselineSource = execFileSync('git', ['show', `${BASELINE_COMMIT}:src/placement.ts`], { encoding: 'utf8' });
  const currentSource = readFileSync('src/placement.ts', 'utf8');
  const code: Record<Variant, string> = { none: '', before: await bundle(baselineSource), after: await bundle(currentSource) };
  const browser = await launchChromium();
  try {
    const rows = [];
    for (const { name, selectors } of CASES) {
      const samples: Record<Variant, Sample[]> = { none: [], before: [], after: [] };
      // Interleaved, so a slow moment of the machine (two cores, shared) falls on every variant alike.
      for (let run = 0; run < RUNS; run += 1) {
        for (const variant of ['none', 'before', 'after'] as const) samples[variant].push(await measure(browser, code, variant, selectors));
      }
      const of = (variant: Variant, key: keyof Sample) => median(samples[variant].map((sample) => sample[key]));
      for (const variant of ['none', 'before', 'after'] as const) {
        rows.push({
          case: name,
          placement: { none: 'none (the page alone)', before: `before (${BASELINE_COMMIT})`, after: 'after (the tree)' }[variant],
          'observer share': variant === 'none' ? '-' : percent(of(variant, 'observer')),
          'vs before': variant === 'after' ? ratio(of('after', 'observer'), of('before', 'observer')) : '',
          'main thread busy': percent(of(variant, 'busy')),
          'batches/s': of(variant, 'batchesPerSecond').toFixed(0),
        });
      }
    }
    printTable(
      `Placement observer: main-thread share in Chromium, 5,000-element page, ${BATCHES_PER_SECOND} mutation batches/s asked for, ` +
        `median of ${RUNS} windows of ${WINDOW_MS / 1000} s`,
      rows,
    );
  } finally {
    await browser.close();
  }
}

await benchPlacementObserver();
