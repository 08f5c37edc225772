import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { shopFixtureForSuite } from './support/shop-fixture.js';

// Issue 29 §1 in real Chromium, on the built files: selectors whose first match changes when the
// element goes in, a page that renders the anchor again on every insertion, and bad queue entries.
// Each page keeps changing unrelated parts of itself (a lazy loader) for a second; the main thread
// must keep answering, and the element is placed once and moved a bounded number of times.
// test/placement-chase.test.ts and test/placement-guards.test.ts run the same cases in happy-dom.

const shop = shopFixtureForSuite();

/** Past this many insertions of the element the page's own spy throws, so a chasing placement fails the test instead of hanging it. */
const RUNAWAY = 2000;

/** Counts the element's insertions in `window.insertions` (an init script, so it is there before the placement code). */
function countInsertions(runaway: number): void {
  const insert = Element.prototype.insertAdjacentElement;
  const counter = window as unknown as { insertions: number };
  counter.insertions = 0;
  Element.prototype.insertAdjacentElement = function (this: Element, where: InsertPosition, element: Element) {
    if (element.localName === 'live-visitors' && ++counter.insertions > runaway) throw new Error('the placement is still moving');
    return insert.call(this, where, element);
  };
}

function page(body: string, entries: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
    <script>window.liveVisitors = window.liveVisitors || []; liveVisitors.push(${entries});</script>
    <script type="module" src="/live-visitors.js"></script></head>
    <body>${body}<aside id="drawer"></aside>
    <script>
      // A lazy loader: unrelated nodes every 10 ms for a second.
      const started = performance.now();
      const loader = setInterval(() => {
        document.querySelector('#drawer').insertAdjacentHTML('beforeend', '<p>Item</p>');
        if (performance.now() - started > 1000) clearInterval(loader);
      }, 10);
    </script></body></html>`;
}

const attributes = () => `{ 'website-id': 'demo-shop', token: 'demo-token', 'api-base': '${shop.service.url}' }`;

async function open(path: string, html: string): Promise<{ page: Page; errors: string[]; warnings: string[] }> {
  shop.site.put(path, html);
  const context = await shop.browser.newContext({ viewport: { width: 800, height: 700 } });
  const tab = await context.newPage();
  const errors: string[] = [];
  const warnings: string[] = [];
  tab.on('pageerror', (error) => errors.push(error.message));
  tab.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
  await tab.addInitScript(countInsertions, RUNAWAY);
  await tab.goto(`${shop.site.url}${path}`);
  return { page: tab, errors, warnings };
}

/** The time a task posted now takes to run, or null when the page does not answer within 30 s (a frozen main thread; a busy machine answers late, not never). */
async function answerTime(tab: Page): Promise<number | null> {
  const answer = tab.evaluate(() => {
    const posted = performance.now();
    return new Promise<number>((resolve) => setTimeout(() => resolve(performance.now() - posted), 0));
  });
  const frozen = new Promise<null>((resolve) => setTimeout(() => resolve(null), 30_000));
  return Promise.race([answer, frozen]);
}

/** After the lazy loader's second of changes. */
const afterTheLoader = (tab: Page) => tab.waitForTimeout(1300);
const insertions = (tab: Page) => tab.evaluate(() => (window as unknown as { insertions: number }).insertions);

it.each([
  [
    '.card .price:last-child, after, two product cards',
    '<div class="card"><p class="price">€40</p></div><div class="card"><p class="price">€50</p></div>',
    `{ selector: '.card .price:last-child', position: 'after', attributes: ATTRIBUTES }`,
    () => document.querySelector('.price')?.nextElementSibling?.localName,
  ],
  [
    '.slot:empty, first, two empty slots',
    '<div class="slot" id="one"></div><div class="slot" id="two"></div>',
    `{ selector: '.slot:empty', position: 'first', attributes: ATTRIBUTES }`,
    () => document.querySelector('#one')?.firstElementChild?.localName,
  ],
])('%s: the page keeps answering, the element is placed once by the first match and never moved', async (_, body, entry, neighbour) => {
  const { page: tab, errors, warnings } = await open(`/chase-${body.length}.html`, page(body, entry.replace('ATTRIBUTES', attributes())));
  await afterTheLoader(tab);
  expect(await answerTime(tab)).not.toBeNull();
  expect(await insertions(tab)).toBe(1);
  expect(await tab.locator('live-visitors').count()).toBe(1);
  expect(await tab.evaluate(neighbour)).toBe('live-visitors');
  expect([errors, warnings]).toEqual([[], []]);
  await tab.context().close();
});

it('a page that renders the anchor again whenever the element goes in: a few moves, one warning naming the selector, and the page answers', async () => {
  const body = `<div id="product"><form class="product-form"></form></div>
    <script>
      // A framework that keeps its box to itself: anything else in it makes it render the box afresh.
      const box = document.querySelector('#product');
      new MutationObserver(() => {
        if (box.querySelector('live-visitors')) box.innerHTML = '<form class="product-form"></form>';
      }).observe(box, { childList: true });
    </script>`;
  const entry = `{ selector: '.product-form', position: 'before', attributes: ${attributes()} }`;
  const { page: tab, errors, warnings } = await open('/answering-page.html', page(body, entry));
  await afterTheLoader(tab);
  expect(await answerTime(tab)).not.toBeNull();
  // The first placing and at most five moves in the second it was stopped in.
  expect(await insertions(tab)).toBeLessThanOrEqual(6);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain('".product-form"');
  expect(errors).toEqual([]);
  await tab.context().close();
});

it('bad entries (a throwing getter, html and :root beside, head, inside a template) stop neither a good one, nor a later push, nor the observer', async () => {
  const body = `<main><form class="product-form"></form><p id="note">Ships</p><template id="built"></template></main>
    <script>
      // A template with a child in the document itself (not in its content), as a script can make.
      document.querySelector('#built').append(Object.assign(document.createElement('p'), { className: 'in-template' }));
    </script>`;
  const bad = [
    "{ get selector() { throw new Error('hostile getter'); } }",
    "{ selector: 'html', position: 'after' }",
    "{ selector: ':root', position: 'before' }",
    "{ selector: 'head', position: 'last' }",
    "{ selector: '.in-template', position: 'after' }",
  ];
  const entries = [...bad.slice(0, 3), `{ selector: '.product-form', position: 'after', attributes: ${attributes()} }`, ...bad.slice(3)];
  const { page: tab, errors, warnings } = await open('/bad-entries.html', page(body, entries.join(', ')));
  await expect.poll(() => tab.evaluate(() => document.querySelector('.product-form')?.nextElementSibling?.localName)).toBe('live-visitors');
  await tab.evaluate(
    (apiBase) =>
      (window as unknown as { liveVisitors: unknown[] }).liveVisitors.push({
        selector: '#note',
        position: 'first',
        attributes: { 'website-id': 'demo-shop', token: 'demo-token', 'api-base': apiBase },
      }),
    shop.service.url,
  );
  await afterTheLoader(tab);
  expect(await tab.evaluate(() => document.querySelector('#note')?.firstElementChild?.localName)).toBe('live-visitors');
  expect(await tab.locator('live-visitors').count()).toBe(2);
  expect(warnings).toHaveLength(bad.length);
  expect(errors).toEqual([]);
  await tab.context().close();
});
