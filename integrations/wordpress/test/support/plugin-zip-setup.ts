import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWordPressPlugin } from '../../build.js';
import { PLUGIN_BUILD_VARIABLE } from './plugin-site.js';

/**
 * Once per run of the integrations suite, after the bundle's build: the plugin's zip, which every
 * WordPress of the suite installs. Built per file, the builds of files running side by side
 * would empty and refill the plugin's assets folder under each other's zip. The workers find
 * it through the environment Vitest hands them.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'live-visitors-zip-'));
  process.env[PLUGIN_BUILD_VARIABLE] = JSON.stringify(buildWordPressPlugin({ zipPath: join(dir, 'live-visitors.zip') }));
  return () => rmSync(dir, { recursive: true, force: true });
}
