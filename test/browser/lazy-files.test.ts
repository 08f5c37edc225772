import { expect, it } from 'vitest';
import { shopFixtureForSuite } from './support/shop-fixture.js';

// Which of the script-tag build's lazy files a page fetches (issue 26 §3): the experiments file
// (holdout, impressions) only with holdout > 0 or once a count shows; the disclosure once a sentence
// shows with its explanation on (issue 30); placement only with a queue entry.

const shop = shopFixtureForSuite();

/** The files of ours a page with `element` fetched, once its state has settled on `state`. */
async function filesFetched(name: string, element: string, state: string): Promise<string[]> {
  shop.site.put(
    `/${name}.html`,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
     <script type="module" src="/live-visitors.js"></script></head><body>${element.replace('API', shop.service.url)}</body></html>`,
  );
  const context = await shop.browser.newContext();
  const page = await context.newPage();
  const files: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/live-visitors')) files.push(path);
  });
  await page.goto(`${shop.site.url}/${name}.html`);
  await expect.poll(() => page.locator('live-visitors').getAttribute('state')).toBe(state);
  // Time for a file asked for late to show up.
  await page.waitForTimeout(300);
  await context.close();
  return files.sort();
}

it.each([
  [
    'a count shown',
    'website-id="demo-shop" min="1"',
    'live',
    ['/live-visitors-disclosure.js', '/live-visitors-experiments.js', '/live-visitors.js'],
  ],
  [
    'a count shown, its disclosure off',
    'website-id="demo-shop" min="1" disclosure="off"',
    'live',
    ['/live-visitors-experiments.js', '/live-visitors.js'],
  ],
  ['no count shown (below min), no holdout', 'website-id="demo-shop" min="1000"', 'live', ['/live-visitors.js']],
  [
    'no count shown, but a holdout',
    'website-id="demo-shop" min="1000" holdout="0.2"',
    'live',
    ['/live-visitors-experiments.js', '/live-visitors.js'],
  ],
  ['an unknown website', 'website-id="nobody"', 'unavailable', ['/live-visitors.js']],
])('%s (%s): only the files it needs', async (_, attributes, state, expected) => {
  const element = `<live-visitors ${attributes} token="demo-token" api-base="API"></live-visitors>`;
  expect(await filesFetched(`lazy-${Math.random().toString(36).slice(2)}`, element, state)).toEqual(expected);
});

// Issue 30 §6: while a holdout's file loads, the variant is neither group, and decidedVariant says
// when it is known. The experiments file is held back for a second to make that moment visible.
it("a holdout's variant reads 'undecided' until its file is in, and decidedVariant resolves with the group", async () => {
  const name = `undecided-${Math.random().toString(36).slice(2)}`;
  shop.site.put(
    `/${name}.html`,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,"></head><body>
     <live-visitors website-id="demo-shop" token="demo-token" api-base="${shop.service.url}" holdout="0.5"></live-visitors>
     <script type="module">
       import '/live-visitors.js';
       const el = document.querySelector('live-visitors');
       window.early = el.variant;
       window.decided = el.decidedVariant.then((variant) => [variant, el.variant]);
     </script></body></html>`,
  );
  const context = await shop.browser.newContext();
  const page = await context.newPage();
  await page.route('**/live-visitors-experiments.js', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await route.continue();
  });
  await page.goto(`${shop.site.url}/${name}.html`);
  const [early, [decided, later]] = await page.evaluate(async () => {
    const { early, decided } = window as unknown as { early: string; decided: Promise<[string, string]> };
    return [early, await decided] as const;
  });
  expect(early).toBe('undecided');
  expect(['shown', 'holdout']).toContain(decided);
  expect(later).toBe(decided);
  await context.close();
});
