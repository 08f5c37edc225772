import { build } from 'vite';
import { findChromium, MISSING_CHROMIUM_MESSAGE } from './chromium.js';

/**
 * Once per run of the browser suite: fail early and clearly without a browser, and build the
 * script-tag bundle the pages load, so the suite tests what shops get.
 */
export default async function setup(): Promise<void> {
  if (!findChromium()) throw new Error(MISSING_CHROMIUM_MESSAGE);
  await build({ configFile: new URL('../../../vite.config.ts', import.meta.url).pathname, logLevel: 'warn' });
}
