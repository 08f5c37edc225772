import type { Browser } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './chromium.js';
import { startDemoServer } from './demo-server.js';

export interface DemoInChromium {
  browser: Browser;
  /** The demo server's origin, without a trailing slash. */
  origin: string;
}

/**
 * Chromium and `npm start`'s demo server, started before the suite's tests and closed after them.
 * The returned object is filled in by the time any test runs (not while the file is being collected).
 */
export function demoInChromiumForSuite(): DemoInChromium {
  const demo = {} as DemoInChromium;
  let server: ViteDevServer | undefined;
  beforeAll(async () => {
    let origin: string;
    [demo.browser, { server, origin }] = await Promise.all([launchChromium(), startDemoServer()]);
    demo.origin = origin;
  });
  afterAll(async () => {
    await Promise.all([demo.browser?.close(), server?.close()]);
  });
  return demo;
}
