import { build } from 'vite';
import { findChromium, MISSING_CHROMIUM_MESSAGE } from './chromium.js';

/**
 * Once per run of the browser suite: fail early and clearly without a browser, and build the
 * script-tag bundle the pages load, so the suite tests what shops get.
 */
export default async function setup(): Promise<void> {
  if (!findChromium()) throw new Error(MISSING_CHROMIUM_MESSAGE);
  // Vitest runs with NODE_ENV=test, which would build Lit's development variant: build what shops get.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: new URL('../../../vite.config.ts', import.meta.url).pathname, logLevel: 'warn', mode: 'production' });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
}
