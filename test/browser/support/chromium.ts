import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where a Chromium may be: an explicit path first, then the usual system packages. Never downloaded. */
const ENVIRONMENT_VARIABLES = ['LIVE_VISITORS_CHROMIUM', 'CHROMIUM_PATH', 'CHROME_PATH'];
const SYSTEM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export const MISSING_CHROMIUM_MESSAGE = [
  'No Chromium found for the real-browser tests.',
  'Install one from your OS package manager, e.g. `sudo apt-get install -y chromium` (Debian/Ubuntu),',
  `or point ${ENVIRONMENT_VARIABLES[0]} at a Chromium or Chrome executable.`,
].join('\n');

export function findChromium(): string | null {
  for (const name of ENVIRONMENT_VARIABLES) {
    const path = process.env[name];
    if (path && existsSync(path)) return path;
  }
  return SYSTEM_PATHS.find((path) => existsSync(path)) ?? null;
}

/** Headless Chromium with no network of its own beyond what pages ask for. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(MISSING_CHROMIUM_MESSAGE);
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}
