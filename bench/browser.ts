// Real Chromium: time from element connected to count painted, and what 10,000 create/remove cycles leave behind.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { build } from 'vite';
import { createEmulator, type EmulatorConfig } from '../emulator/src/index.js';
import { launchChromium } from '../test/browser/support/chromium.js';
import { serveOnLoopback } from '../test/browser/support/loopback-server.js';
import { printTable, ratio } from './table.js';

const RUNS = 20;
const WARM_UP_RUNS = 3;
const CYCLES = 10_000;
/** One website per cold run, so every cold run meets an empty cache (the page's memory one included). */
const WEBSITES: EmulatorConfig['websites'] = Array.from({ length: 4 * (RUNS + WARM_UP_RUNS) + 2 }, (_, index) => ({
  id: `bench-${index}`,
  token: `bench-token-${index}`,
  plan: 'enterprise',
}));

async function buildFloor(): Promise<{ code: string; cleanup: () => Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'live-visitors-floor-'));
  await build({
    configFile: resolve('vite.config.ts'),
    logLevel: 'silent',
    build: {
      outDir: directory,
      emptyOutDir: true,
      sourcemap: false,
      rolldownOptions: { input: resolve('bench/floor-reactive-element.ts') },
    },
  });
  return {
    code: await readFile(join(directory, 'live-visitors.js'), 'utf8'),
    cleanup: () => rm(directory, { recursive: true, force: true }),
  };
}

interface BenchServers {
  /** The shop's origin: pages, bundles and a same-origin relay at /api/. */
  site: string;
  /** Another origin serving the emulator itself, for elements with a token and `api-base`. */
  api: string;
  /** Holds every API answer this long (preflights included), as a round trip over a real network would. */
  delayMs: number;
  /** API requests seen since the last reset, by method. */
  requests: { GET: number; OPTIONS: number };
  close(): Promise<void>;
}

/**
 * Two origins on loopback around one emulator. The shop's origin serves the pages, both bundles,
 * and a same-origin relay (it adds the website's token, as a shop's relay would): an element
 * without `token` and `api-base` asks it with one plain GET, no CORS preflight. The other origin
 * is the service itself: an element with a token asks it cross-origin, so the browser sends a
 * CORS preflight first (Authorization is not a CORS-safelisted header).
 */
async function startBenchServers(floor: string): Promise<BenchServers> {
  const bundle = await readFile(resolve('dist/live-visitors.js'), 'utf8');
  const emulator = createEmulator({ config: { websites: WEBSITES } });
  for (const { id } of WEBSITES) for (let visitor = 0; visitor < 23; visitor += 1) emulator.recordPageview(id, `visitor-${visitor}`);
  const tokens = new Map(WEBSITES.map(({ id, token }) => [id, token]));
  const page = (scripts: string[]) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title><link rel="icon" href="data:,">
     <script>${HARNESS}</script>${scripts.map((src) => `<script type="module" src="${src}"></script>`).join('')}</head><body></body></html>`;
  const files: Record<string, { body: string; type: string }> = {
    '/time.html': { body: page(['/floor.js', '/live-visitors.js']), type: 'text/html' },
    '/cycles.html': { body: page(['/live-visitors.js']), type: 'text/html' },
    '/live-visitors.js': { body: bundle, type: 'text/javascript' },
    '/floor.js': { body: floor, type: 'text/javascript' },
  };
  const state = { delayMs: 0, requests: { GET: 0, OPTIONS: 0 } };
  const answer = async (request: Request, handle: () => Promise<Response>) => {
    if (request.method === 'GET' || request.method === 'OPTIONS') state.requests[request.method] += 1;
    if (state.delayMs > 0) await new Promise((done) => setTimeout(done, state.delayMs));
    return handle();
  };
  const site = await serveOnLoopback((request) => {
    const url = new URL(request.url);
    if (url.pathname.startsWith('/api/')) {
      const headers = new Headers(request.headers);
      headers.set('authorization', `Bearer ${tokens.get(url.searchParams.get('websiteId') ?? '') ?? ''}`);
      return answer(request, () => emulator.handler(new Request(request.url, { headers, signal: request.signal })));
    }
    const file = files[url.pathname];
    if (!file) return new Response('Not found', { status: 404 });
    return new Response(file.body, { headers: { 'content-type': `${file.type}; charset=utf-8`, 'cache-control': 'no-store' } });
  });
  const api = await serveOnLoopback((request) => answer(request, () => emulator.handler(request)));
  return {
    site: site.url,
    api: api.url,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value) {
      state.delayMs = value;
    },
    get requests() {
      return state.requests;
    },
    set requests(value) {
      state.requests = value;
    },
    close: async () => {
      emulator.dispose();
      await Promise.all([site.close(), api.close()]);
    },
  };
}

type Subject =
  | { kind: 'floor' }
  | { kind: 'widget'; websiteId: string; token?: string; apiBase?: string }
  | { kind: 'fetch'; websiteId: string };

interface Sample {
  ms: number;
  /** Animation frames from connection to the frame that shows the count (1 = the first frame). */
  frames: number;
}

/**
 * The in-page half, as plain JavaScript (functions passed to `page.evaluate` would carry tsx's
 * `__name` helper, which the page does not have).
 *
 * `benchMeasure` connects the subject at the start of a frame, checks in every animation frame
 * whether its count is in the DOM, and stops the clock once the frame that has it is done (a
 * message posted in that frame's rAF is handled after its paint). `fetch` times a bare request to
 * the relay: the cold case's one round trip. `benchCycles` creates, connects, renders and removes
 * the element `count` times and returns the time per cycle.
 */
const HARNESS = `
window.benchMeasure = async (subject) => {
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  if (subject.kind === 'fetch') {
    const start = performance.now();
    await (await fetch('/api/v1/realtime?websiteId=' + subject.websiteId)).json();
    return { ms: performance.now() - start, frames: 0 };
  }
  const element = document.createElement(subject.kind === 'floor' ? 'bare-element' : 'live-visitors');
  if (subject.kind === 'floor') element.setAttribute('label', '23 people are browsing this shop right now');
  else {
    element.setAttribute('website-id', subject.websiteId);
    if (subject.token) element.setAttribute('token', subject.token);
    if (subject.apiBase) element.setAttribute('api-base', subject.apiBase);
  }
  const painted = () => subject.kind === 'floor'
    ? Boolean(element.shadowRoot && element.shadowRoot.textContent.includes('23 people'))
    : Boolean(element.shadowRoot && element.shadowRoot.querySelector('[part="count"]'));
  const start = performance.now();
  document.body.append(element);
  let frames = 0;
  const sample = await new Promise((done) => {
    const onFrame = () => {
      frames += 1;
      if (!painted()) return void requestAnimationFrame(onFrame);
      const channel = new MessageChannel();
      channel.port1.onmessage = () => done({ ms: performance.now() - start, frames });
      channel.port2.postMessage(null);
    };
    requestAnimationFrame(onFrame);
  });
  element.remove();
  // The feed stops a task after its last element leaves.
  await new Promise((done) => setTimeout(done, 0));
  return sample;
};

window.benchCycles = async (count, websiteId) => {
  const start = performance.now();
  for (let index = 0; index < count; index += 1) {
    const element = document.createElement('live-visitors');
    element.setAttribute('website-id', websiteId);
    document.body.append(element);
    await element.updateComplete;
    element.remove();
    // Let the feed see its last subscriber go (it waits a microtask for a move in the DOM).
    await Promise.resolve();
  }
  // Update events go out after each render; let the last ones leave.
  await new Promise((done) => setTimeout(done, 0));
  return (performance.now() - start) / count;
};
`;

interface BenchWindow {
  benchMeasure(subject: Subject): Promise<Sample>;
  benchCycles(count: number, websiteId: string): Promise<number>;
}

function measureOnce(page: Page, subject: Subject): Promise<Sample> {
  return page.evaluate((value) => (window as unknown as BenchWindow).benchMeasure(value), subject);
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

const milliseconds = (value: number) => `${value.toFixed(1)} ms`;

/** A round trip over a real network, added by the servers to every API answer (preflights included). */
const DELAY_MS = 100;

async function timeToCount(page: Page, servers: BenchServers) {
  let website = 0;
  const nextWebsite = () => WEBSITES[website++]!;
  const warmWebsite = WEBSITES.at(-1)!.id;
  const relayCold = (): Subject => ({ kind: 'widget', websiteId: nextWebsite().id });
  const tokenCold = (): Subject => {
    const { id, token } = nextWebsite();
    return { kind: 'widget', websiteId: id, token, apiBase: servers.api };
  };
  const warm = (): Subject => ({ kind: 'widget', websiteId: warmWebsite });
  const cases: Array<{ name: string; delayMs: number; subject: () => Subject }> = [
    { name: 'bare ReactiveElement, constant text (anchor)', delayMs: 0, subject: () => ({ kind: 'floor' }) },
    { name: 'warm: count stored by an earlier load', delayMs: 0, subject: warm },
    { name: 'cold, same-origin relay', delayMs: 0, subject: relayCold },
    { name: 'cold, token to the service origin', delayMs: 0, subject: tokenCold },
    { name: 'bare fetch() of the relay, no element', delayMs: 0, subject: () => ({ kind: 'fetch', websiteId: warmWebsite }) },
    { name: `warm, answers ${DELAY_MS} ms late`, delayMs: DELAY_MS, subject: warm },
    { name: `cold, relay, answers ${DELAY_MS} ms late`, delayMs: DELAY_MS, subject: relayCold },
    { name: `cold, token, answers ${DELAY_MS} ms late`, delayMs: DELAY_MS, subject: tokenCold },
  ];
  // The warm case's stored count: one earlier connection fetched it.
  await measureOnce(page, warm());
  const results = [];
  for (const { name, delayMs, subject } of cases) {
    servers.delayMs = delayMs;
    for (let run = 0; run < WARM_UP_RUNS; run += 1) await measureOnce(page, subject());
    servers.requests = { GET: 0, OPTIONS: 0 };
    const samples: Sample[] = [];
    for (let run = 0; run < RUNS; run += 1) samples.push(await measureOnce(page, subject()));
    results.push({ name, samples, requests: { ...servers.requests } });
  }
  servers.delayMs = 0;
  const anchor = percentile(
    results[0]!.samples.map((sample) => sample.ms),
    0.5,
  );
  const perRun = (count: number) => (count / RUNS).toFixed(count % RUNS ? 2 : 0);
  printTable(
    `Time from element connected to count painted, real Chromium (headless), loopback, ${RUNS} runs each`,
    results.map(({ name, samples, requests }) => {
      const ms = samples.map((sample) => sample.ms);
      const median = percentile(ms, 0.5);
      const isFetch = name.startsWith('bare fetch');
      return {
        case: name,
        median: milliseconds(median),
        p90: milliseconds(percentile(ms, 0.9)),
        'frames (median)': isFetch
          ? ''
          : String(
              percentile(
                samples.map((sample) => sample.frames),
                0.5,
              ),
            ),
        'GET per run': perRun(requests.GET),
        'preflights per run': perRun(requests.OPTIONS),
        'median vs anchor': ratio(median, anchor),
      };
    }),
  );
  console.log(
    '\nTarget: warm paints in the first frame with no request, like the anchor, however slow the service; cold waits for one GET' +
      ' (with a token to another origin, the browser adds a CORS preflight; a same-origin relay needs none).',
  );
}

interface Leftovers {
  heap: number;
  listeners: number;
  nodes: number;
  windowListeners: number;
  documentListeners: number;
}

async function leftovers(cdp: CDPSession): Promise<Leftovers> {
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const metric = (name: string) => metrics.find((entry) => entry.name === name)?.value ?? Number.NaN;
  const listenersOn = async (expression: string) => {
    const { result } = await cdp.send('Runtime.evaluate', { expression });
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId! });
    await cdp.send('Runtime.releaseObject', { objectId: result.objectId! });
    return listeners.length;
  };
  return {
    heap: metric('JSHeapUsedSize'),
    listeners: metric('JSEventListeners'),
    nodes: metric('Nodes'),
    windowListeners: await listenersOn('window'),
    documentListeners: await listenersOn('document'),
  };
}

const CHECKPOINT = 1_000;

async function cycles(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const websiteId = WEBSITES.at(-2)!.id;
  const cycle = (count: number) =>
    page.evaluate(([value, id]) => (window as unknown as BenchWindow).benchCycles(value, id), [count, websiteId] as const);
  // The first cycle fetches and stores the count; every later one renders it from the cache.
  await cycle(1);
  await cycle(100);
  const before = await leftovers(cdp);
  let elapsed = await cycle(CHECKPOINT);
  const checkpoint = await leftovers(cdp);
  elapsed = (elapsed * CHECKPOINT + (await cycle(CYCLES - CHECKPOINT)) * (CYCLES - CHECKPOINT)) / CYCLES;
  const after = await leftovers(cdp);
  // The same measurement with one element connected: its feed's listeners must show up, or the zeros above prove nothing.
  await page.evaluate((id) => {
    const element = document.createElement('live-visitors');
    element.setAttribute('website-id', id);
    document.body.append(element);
    return element.updateComplete.then(() => undefined);
  }, websiteId);
  const connected = await leftovers(cdp);
  const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const row = (metric: string, key: keyof Leftovers, format: (value: number) => string = String) => ({
    metric,
    'before the cycles': format(before[key]),
    [`after ${CHECKPOINT.toLocaleString('en')}`]: format(checkpoint[key]),
    [`after ${CYCLES.toLocaleString('en')}`]: format(after[key]),
    change: `${after[key] - before[key] >= 0 ? '+' : ''}${format(after[key] - before[key])}`,
    'after vs before': ratio(after[key], before[key]),
    'then one connected': format(connected[key]),
  });
  printTable(`What ${CYCLES.toLocaleString('en')} create/connect/render/remove cycles leave behind (after a forced GC; CDP)`, [
    row('JS heap used', 'heap', kilobytes),
    row('JS event listeners (page)', 'listeners'),
    row('listeners on window', 'windowListeners'),
    row('listeners on document', 'documentListeners'),
    row('DOM nodes', 'nodes'),
  ]);
  console.log(
    `\n${elapsed.toFixed(3)} ms per cycle (warm cache, no request). A leak grows from ${CHECKPOINT.toLocaleString('en')} to ${CYCLES.toLocaleString('en')};` +
      ' the last column shows what one connected element adds (its feed listens for visibility, online/offline and storage).' +
      " The listeners on window before the cycles are the harness's (Playwright), not the element's.",
  );
  await cdp.detach();
}

export async function benchBrowser(): Promise<void> {
  const floor = await buildFloor();
  const [browser, servers] = await Promise.all([launchChromium(), startBenchServers(floor.code)]);
  try {
    const page = await browser.newPage();
    await page.goto(`${servers.site}/time.html`);
    await page.waitForFunction(() => customElements.get('live-visitors') && customElements.get('bare-element'));
    await timeToCount(page, servers);
    await page.close();

    const cyclesPage = await browser.newPage();
    await cyclesPage.goto(`${servers.site}/cycles.html`);
    await cyclesPage.waitForFunction(() => customElements.get('live-visitors'));
    await cycles(cyclesPage);
  } finally {
    await Promise.all([browser.close(), servers.close(), floor.cleanup()]);
  }
}
