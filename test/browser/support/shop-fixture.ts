import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './chromium.js';
import { type CountingEmulator, startCountingEmulator } from './counting-emulator.js';
import { type StaticSite, startStaticSite } from './static-site.js';

/** What the suites that load the built script-tag files as a shop does need: a browser, the files, and the service. */
export interface ShopFixture {
  browser: Browser;
  site: StaticSite;
  /** The counting emulator, with 23 visitors on `demo-shop`. */
  service: CountingEmulator;
}

export async function startShopFixture(): Promise<ShopFixture> {
  const [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startCountingEmulator()]);
  service.setVisitors('demo-shop', 23);
  return { browser, site, service };
}

/** Closes what `startShopFixture` started; parts that never started are skipped. */
export async function closeShopFixture({ browser, site, service }: Partial<ShopFixture>): Promise<void> {
  await Promise.all([browser?.close(), site?.close(), service?.close()]);
}

/**
 * Starts the fixture (then `putPages` puts the suite's pages on its site) before the suite's tests and closes it after them. The returned object is
 * filled in by the time any test runs (not while the file is being collected).
 */
export function shopFixtureForSuite(putPages: (shop: ShopFixture) => void = () => {}): ShopFixture {
  const shop = {} as ShopFixture;
  beforeAll(async () => {
    Object.assign(shop, await startShopFixture());
    putPages(shop);
  });
  afterAll(async () => {
    await closeShopFixture(shop);
  });
  return shop;
}
