import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { chromium } from 'playwright-core';
import { createEmulator } from '../emulator/src/index.js';
import { builtScripts } from '../test/browser/support/built-scripts.js';
import { findChromium } from '../test/browser/support/chromium.js';
import { serveOnLoopback } from '../test/browser/support/loopback-server.js';
import { readmeSnippet } from '../test/support/readme-snippet.js';

/** The pages Lighthouse audits: the demo's script-tag page, and a heavier, realistic product page. */
export type PageName = 'demo/script-tag.html' | 'bench/product-page';
export const PAGES: PageName[] = ['demo/script-tag.html', 'bench/product-page'];

/** A realistic answer time for the service across the internet: the count cannot sneak in before the first paint. */
export const API_LATENCY_MS = 250;
const require = createRequire(import.meta.url);
const CROWD = 40;
/** The snippet's script, wherever it is in a page. */
const SCRIPT_TAG = /\s*<script>(?:(?!<\/script>)[\s\S])*'\/live-visitors\.js'[\s\S]*?<\/script>/;
const ELEMENT = /\s*<live-visitors\b[^>]*>[\s\S]*?<\/live-visitors>/;

/** The page with the widget (asking the service at `apiBase`), and the same page without its script and element. */
async function pageVariants(page: PageName, apiBase: string): Promise<{ with: string; without: string }> {
  // The README's snippet; the demo page has its own copy, which a test keeps equal to it.
  const snippet = readmeSnippet('/live-visitors.js');
  const withWidget = (
    page === 'bench/product-page'
      ? (await readFile(resolve('bench/product-page/index.html'), 'utf8'))
          .replace('<!--widget-script-->', snippet.script)
          .replace(
            '<!--widget-->',
            `<live-visitors website-id="demo-shop" token="demo-token" style="${snippet.elementStyle}"></live-visitors>`,
          )
      : await readFile(resolve(page), 'utf8')
  ).replace('<live-visitors ', `<live-visitors api-base="${apiBase}" `);
  const without = withWidget.replace(SCRIPT_TAG, '').replace(ELEMENT, '');
  if (without.includes("'/live-visitors.js'") || without.includes('<live-visitors')) {
    throw new Error(`${page} changed: the copy without the widget still has its script or element.`);
  }
  return { with: withWidget, without };
}

/**
 * A photo-like JPEG for the product page's hero (LCP candidate), drawn once by the system's
 * Chromium on a canvas: gradients and seeded grain, so it compresses like a photo (about 100 KB).
 */
async function heroImage(): Promise<Buffer> {
  const cached = resolve('node_modules/.cache/live-visitors-bench/hero.jpg');
  try {
    return await readFile(cached);
  } catch {}
  const browser = await chromium.launch({ executablePath: findChromium()!, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    const dataUrl = await page.evaluate(() => {
      const canvas = Object.assign(document.createElement('canvas'), { width: 1200, height: 800 });
      const context = canvas.getContext('2d')!;
      const gradient = context.createLinearGradient(0, 0, 1200, 800);
      gradient.addColorStop(0, '#3b2a1e');
      gradient.addColorStop(0.5, '#a67c52');
      gradient.addColorStop(1, '#e8dcc8');
      context.fillStyle = gradient;
      context.fillRect(0, 0, 1200, 800);
      const image = context.getImageData(0, 0, 1200, 800);
      let seed = 42;
      for (let index = 0; index < image.data.length; index += 4) {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        const grain = (seed % 41) - 20;
        for (let channel = 0; channel < 3; channel += 1)
          image.data[index + channel] = Math.max(0, Math.min(255, image.data[index + channel]! + grain));
      }
      context.putImageData(image, 0, 0);
      return canvas.toDataURL('image/jpeg', 0.6);
    });
    const bytes = Buffer.from(dataUrl.split(',')[1]!, 'base64');
    await mkdir(dirname(cached), { recursive: true });
    await writeFile(cached, bytes);
    return bytes;
  } finally {
    await browser.close();
  }
}

interface SiteFile {
  body: Buffer;
  /** Text files, compressed once when the site starts: a CDN has them ready, and the time to compress
   * would count as the server's answer time, which Lighthouse's simulation charges to every request. */
  brotli: Buffer | null;
  type: string;
}

function siteFile(body: Buffer, type: string): SiteFile {
  const text = /^(text\/|application\/json)/.test(type);
  return { body, type, brotli: text ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }) : null };
}

/** Text files go out brotli-compressed when the browser accepts it, as a CDN serves them. */
function respond(file: SiteFile, acceptEncoding: string): Response {
  const headers: Record<string, string> = { 'content-type': file.type, 'cache-control': 'no-cache' };
  if (file.brotli && acceptEncoding.includes('br')) {
    headers['content-encoding'] = 'br';
    return new Response(new Uint8Array(file.brotli), { headers });
  }
  return new Response(new Uint8Array(file.body), { headers });
}

export interface LighthouseSites {
  /** A new site (a new port, so a new origin) serving every page and file: one per audit. */
  open(): Promise<{ url: string; close(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * Serves both variants of every page, the built bundle with its language files, and the product
 * page's assets, each audit from a new origin: nothing the last run stored in localStorage or
 * IndexedDB can make the next one warm. The files are read and compressed once. The emulated
 * service answers from an origin of its own, after `API_LATENCY_MS`, as a shop's analytics
 * service does. (On the page's origin its slowness would also be charged to the page:
 * Lighthouse's simulation estimates one server response time per origin, the median over that
 * origin's requests, HTML included.)
 */
export async function startLighthouseSites(): Promise<LighthouseSites> {
  const emulator = createEmulator({ simulate: CROWD });
  const service = await serveOnLoopback(async (request) => {
    await new Promise((resolve) => setTimeout(resolve, API_LATENCY_MS));
    return emulator.handler(request);
  });

  const files = new Map<string, SiteFile>();
  const put = (path: string, body: string | Buffer, type: string) => files.set(path, siteFile(Buffer.from(body), type));
  for (const page of PAGES) {
    const variants = await pageVariants(page, service.url);
    put(`/${page}/with-widget.html`, variants.with, 'text/html; charset=utf-8');
    put(`/${page}/without-widget.html`, variants.without, 'text/html; charset=utf-8');
  }
  for (const [path, body] of await builtScripts()) put(path, body, 'text/javascript; charset=utf-8');
  put('/shop.js', await readFile(resolve('bench/product-page/shop.js')), 'text/javascript; charset=utf-8');
  put('/hero.jpg', await heroImage(), 'image/jpeg');
  // The shop's web font in the two weights the page uses, as shops serve it: WOFF2 (already compressed).
  for (const weight of [400, 700]) {
    put(
      `/fonts/shop-sans-${weight}.woff2`,
      await readFile(require.resolve(`@fontsource/lato/files/lato-latin-${weight}-normal.woff2`)),
      'font/woff2',
    );
  }

  return {
    open: () =>
      serveOnLoopback((request) => {
        const file = files.get(new URL(request.url).pathname);
        if (!file) return new Response('Not found', { status: 404 });
        return respond(file, request.headers.get('accept-encoding') ?? '');
      }),
    async close() {
      emulator.dispose();
      await service.close();
    },
  };
}
