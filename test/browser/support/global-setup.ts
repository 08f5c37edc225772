import { build } from 'vite';
import { findChromium, MISSING_CHROMIUM_MESSAGE } from './chromium.js';

/** Set once the bundle is built in this run: the browser and integrations suites both ask for it. */
const BUILT_IN_THIS_RUN = 'LIVE_VISITORS_BUNDLE_BUILT_BY';

/**
 * Once per run of the browser and integrations suites: fail early and clearly without a browser,
 * and build the script-tag bundle the pages load, so the suites test what shops get. Each suite
 * runs its global setup in the one Vitest process; the second finds the bundle of the first.
 */
export default async function setup(): Promise<void> {
  if (!findChromium()) throw new Error(MISSING_CHROMIUM_MESSAGE);
  if (process.env[BUILT_IN_THIS_RUN] === String(process.pid)) return;
  // Vitest runs with NODE_ENV=test, which would build Lit's development variant: build what shops get.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: new URL('../../../vite.config.ts', import.meta.url).pathname, logLevel: 'warn', mode: 'production' });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  process.env[BUILT_IN_THIS_RUN] = String(process.pid);
}
