import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorServer, startEmulatorServer } from '../../emulator/src/index.js';
import { buildBundlerApp, PRODUCTION } from './support/bundler-app.js';
import { launchChromium } from './support/chromium.js';
import { type StaticSite, startStaticSite } from './support/static-site.js';
import { sentence, shownText } from './support/widget.js';

const project = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** One website per page, each with its own count, so a page can only show its own number from the emulator. */
const SHOPS = {
  plain: { websiteId: 'plain-shop', token: 'plain-token', visitors: 3 },
  react: { websiteId: 'react-shop', token: 'react-token', visitors: 5 },
  vue: { websiteId: 'vue-shop', token: 'vue-token', visitors: 7 },
} as const;
const FALLBACK = 'Ships tomorrow.';

let browser: Browser;
let site: StaticSite;
let service: EmulatorServer;
let context: BrowserContext | undefined;
let buildDirectory: string | undefined;

/** Bundles the React and Vue apps (test/browser/support/*-page.ts) and serves them on pages that load the script-tag bundle first. */
async function buildFrameworkPages(): Promise<void> {
  buildDirectory = await mkdtemp(join(tmpdir(), 'live-visitors-interop-'));
  await build({
    configFile: false,
    root: project('.'),
    logLevel: 'silent',
    resolve: {
      ...PRODUCTION.resolve,
      // The full Vue build compiles the page's template at run time, as SFC templates are compiled at build time.
      alias: [{ find: /^vue$/, replacement: 'vue/dist/vue.esm-bundler.js' }],
    },
    define: {
      ...PRODUCTION.define,
      __VUE_OPTIONS_API__: 'true',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
    build: {
      outDir: buildDirectory,
      emptyOutDir: true,
      target: 'es2022',
      sourcemap: false,
      modulePreload: false,
      copyPublicDir: false,
      rolldownOptions: {
        input: { 'react-page': project('test/browser/support/react-page.ts'), 'vue-page': project('test/browser/support/vue-page.ts') },
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
      },
    },
  });
  for (const file of await readdir(buildDirectory))
    site.put(`/${file}`, await readFile(join(buildDirectory, file), 'utf8'), 'text/javascript');
  for (const name of ['react', 'vue']) {
    site.put(
      `/${name}.html`,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${name} shop</title>
       <script type="module" src="/live-visitors.js"></script>
       <script type="module" src="/${name}-page.js"></script></head><body><div id="root"></div></body></html>`,
    );
  }
}

beforeAll(async () => {
  const websites = Object.values(SHOPS).map(({ websiteId, token }) => ({ id: websiteId, token, plan: 'enterprise' as const }));
  [browser, site, service] = await Promise.all([
    launchChromium(),
    startStaticSite(),
    startEmulatorServer({ port: 0, controls: true, config: { websites } }),
  ]);
  for (const { websiteId, visitors } of Object.values(SHOPS)) {
    for (let visitor = 0; visitor < visitors; visitor += 1) service.emulator.recordPageview(websiteId, `visitor-${visitor}`);
  }
  await buildFrameworkPages();
});

afterEach(async () => {
  const seen = problems;
  problems = [];
  await context?.close();
  context = undefined;
  // No framework and no element complained: no uncaught error, no warning (Vue warns about unresolved components, React about bad props).
  expect(seen).toEqual([]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), site?.close(), service?.close()]);
  if (buildDirectory) await rm(buildDirectory, { recursive: true, force: true });
});

let problems: string[] = [];

/** A fresh profile (no stored count), so every count on the page comes from a request to the emulator. */
async function open(path: string, shop: (typeof SHOPS)[keyof typeof SHOPS]): Promise<Page> {
  problems = [];
  context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`uncaught error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  const query = new URLSearchParams({ websiteId: shop.websiteId, token: shop.token, apiBase: service.url });
  await page.goto(`${site.url}${path}?${query}`);
  return page;
}

/** Where a value came from: the property, and whether an attribute carries it too. */
async function source(page: Page, selector: string, property: 'websiteId' | 'min', attribute: string) {
  return page.locator(selector).evaluate(
    (element, [name, attributeName]) => ({
      property: (element as unknown as Record<string, unknown>)[name!],
      attribute: element.getAttribute(attributeName!),
    }),
    [property, attribute] as const,
  );
}

async function expectShows(page: Page, selector: string, text: string): Promise<void> {
  await expect.poll(() => shownText(page.locator(selector))).toBe(text);
}

describe('a plain page (the script-tag bundle)', () => {
  it('attributes, properties and events', async () => {
    const { websiteId, token, visitors } = SHOPS.plain;
    site.put(
      '/plain.html',
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>plain shop</title>
       <script type="module" src="/live-visitors.js"></script></head>
       <body><main><h1>Plain shop</h1>
         <p id="by-attributes"><live-visitors website-id="${websiteId}" token="${token}" api-base="${service.url}" min="1000"><span slot="fallback">${FALLBACK}</span></live-visitors></p>
         <p id="by-properties"></p>
         <p>Heard by the element: <output id="heard">nothing</output>, by the document: <output id="heard-by-document">nothing</output></p>
       </main>
       <script type="module">
         const params = new URLSearchParams(location.search);
         document.addEventListener('live-visitors-update', (event) => {
           document.querySelector('#heard-by-document').textContent = String(event.detail.count);
         });
         const widget = document.createElement('live-visitors');
         widget.addEventListener('live-visitors-update', (event) => {
           document.querySelector('#heard').textContent = event.detail.count + ' ' + event.detail.websiteId;
         });
         widget.websiteId = params.get('websiteId');
         widget.token = params.get('token');
         widget.apiBase = params.get('apiBase');
         document.querySelector('#by-properties').append(widget);
       </script></body></html>`,
    );
    const page = await open('/plain.html', SHOPS.plain);

    await expectShows(page, '#by-properties live-visitors', sentence(visitors));
    await expect.poll(() => page.locator('#heard').textContent()).toBe(`${visitors} ${websiteId}`);
    await expect.poll(() => page.locator('#heard-by-document').textContent()).toBe(String(visitors));
    expect(await source(page, '#by-properties live-visitors', 'websiteId', 'website-id')).toEqual({ property: websiteId, attribute: null });

    // Attributes become properties; `min` above the count shows the fallback.
    await expect.poll(() => page.locator('#by-attributes live-visitors').getAttribute('state')).toBe('live');
    await expectShows(page, '#by-attributes live-visitors', FALLBACK);
    expect(await source(page, '#by-attributes live-visitors', 'websiteId', 'website-id')).toEqual({
      property: websiteId,
      attribute: websiteId,
    });
    expect(await source(page, '#by-attributes live-visitors', 'min', 'min')).toEqual({ property: 1000, attribute: '1000' });

    // A property set later, then an attribute set later, each takes effect.
    await page.locator('#by-attributes live-visitors').evaluate((element: HTMLElementTagNameMap['live-visitors']) => (element.min = 1));
    await expectShows(page, '#by-attributes live-visitors', sentence(visitors));
    await page.locator('#by-attributes live-visitors').evaluate((element) => element.setAttribute('min', '1000'));
    await expectShows(page, '#by-attributes live-visitors', FALLBACK);
  });
});

describe('a React 19 page', () => {
  it('camelCase props become properties, dash-case props attributes, and onlive-visitors-update hears the update', async () => {
    const { websiteId, visitors } = SHOPS.react;
    const page = await open('/react.html', SHOPS.react);

    await expectShows(page, '#by-properties live-visitors', sentence(visitors));
    await expect.poll(() => page.locator('#heard').textContent()).toBe(String(visitors));
    expect(await source(page, '#by-properties live-visitors', 'websiteId', 'website-id')).toEqual({ property: websiteId, attribute: null });

    await expect.poll(() => page.locator('#by-attributes live-visitors').getAttribute('state')).toBe('live');
    await expectShows(page, '#by-attributes live-visitors', FALLBACK);
    expect(await source(page, '#by-attributes live-visitors', 'websiteId', 'website-id')).toEqual({
      property: websiteId,
      attribute: websiteId,
    });
    expect(await source(page, '#by-attributes live-visitors', 'min', 'min')).toEqual({ property: 1000, attribute: null });

    // A state change re-renders with the new property value.
    await page.locator('#lower-min').click();
    await expectShows(page, '#by-attributes live-visitors', sentence(visitors));
    expect(await source(page, '#by-attributes live-visitors', 'min', 'min')).toEqual({ property: 1, attribute: null });
  });
});

describe('a Vue 3 page', () => {
  it('template bindings with isCustomElement and h() render functions: properties, attributes, events', async () => {
    const { websiteId, visitors } = SHOPS.vue;
    const page = await open('/vue.html', SHOPS.vue);

    await expectShows(page, '#by-render-function live-visitors', sentence(visitors));
    await expect.poll(() => page.locator('#heard-by-render-function').textContent()).toBe(String(visitors));
    expect(await source(page, '#by-render-function live-visitors', 'websiteId', 'website-id')).toEqual({
      property: websiteId,
      attribute: null,
    });

    await expect.poll(() => page.locator('#by-template live-visitors').getAttribute('state')).toBe('live');
    await expectShows(page, '#by-template live-visitors', FALLBACK);
    await expect.poll(() => page.locator('#heard-by-template').textContent()).toBe(String(visitors));
    expect(await source(page, '#by-template live-visitors', 'websiteId', 'website-id')).toEqual({
      property: websiteId,
      attribute: websiteId,
    });
    expect(await source(page, '#by-template live-visitors', 'min', 'min')).toEqual({ property: 1000, attribute: null });

    await page.locator('#lower-min').click();
    await expectShows(page, '#by-template live-visitors', sentence(visitors));
    expect(await source(page, '#by-template live-visitors', 'min', 'min')).toEqual({ property: 1, attribute: null });
  });
});

describe('an app that installed the package and bundles it (Vite production build)', () => {
  let app: Map<string, string>;

  beforeAll(async () => {
    app = await buildBundlerApp({
      'import-define': `import 'live-visitors/define';`,
      'import-package': `import 'live-visitors';`,
    });
    for (const [file, code] of app) site.put(`/app/${file}`, code, 'text/javascript');
  });

  async function registersTheElement(entry: string): Promise<void> {
    const { websiteId, token, visitors } = SHOPS.plain;
    site.put(
      `/app/${entry}.html`,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>shop app</title>
       <script type="module" src="/app/${entry}.js"></script></head>
       <body><p><live-visitors website-id="${websiteId}" token="${token}" api-base="${service.url}"></live-visitors></p></body></html>`,
    );
    const page = await open(`/app/${entry}.html`, SHOPS.plain);
    await page.waitForLoadState('load');
    expect(await page.evaluate(() => customElements.get('live-visitors') !== undefined), `${entry} defines <live-visitors>`).toBe(true);
    await expectShows(page, 'live-visitors', sentence(visitors));
  }

  // The production build (the default condition) drops the development build's full sentences.
  it('resolves the production build by default and the development build under the development condition', async () => {
    const bundled = (files: Map<string, string>) => [...files.values()].join('\n');
    const development = bundled(await buildBundlerApp({ 'import-define': `import 'live-visitors/define';` }, 'development'));
    expect(development).toContain("set website-id to your website's ID.");
    expect(bundled(app)).not.toContain("set website-id to your website's ID.");
  });

  it("import 'live-visitors/define' registers <live-visitors>", async () => {
    await registersTheElement('import-define');
  });

  // The package entry must be listed in "sideEffects", or bundlers drop a bare import of it whole.
  it("import 'live-visitors' (docs/frameworks.md, With a bundler) registers <live-visitors>", async () => {
    await registersTheElement('import-package');
  });
});
