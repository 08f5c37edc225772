import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The plugin's folder: its root is the folder WordPress unpacks into `wp-content/plugins/`. */
export const PLUGIN_DIR = join(HERE, 'live-visitors');
const REPOSITORY_DIST = join(HERE, '..', '..', 'dist');
const DEFAULT_ZIP = join(HERE, 'build', 'live-visitors.zip');

export interface PluginBuild {
  /** The installable zip (one `live-visitors/` folder inside). */
  readonly zipPath: string;
  readonly zipBytes: number;
  /** The element's files copied into the plugin's `assets/`, relative to it. */
  readonly assets: readonly string[];
}

/**
 * Copies the built element into the plugin (`assets/`: `live-visitors.js` and its `live-visitors-*.js`
 * siblings, or the older `locales/` folder beside it), then zips the plugin folder. Source maps stay
 * out: shops' visitors never need them, and they would triple the zip.
 */
export function buildWordPressPlugin(options: { dist?: string; zipPath?: string } = {}): PluginBuild {
  const dist = options.dist ?? REPOSITORY_DIST;
  const zipPath = options.zipPath ?? DEFAULT_ZIP;
  if (!existsSync(join(dist, 'live-visitors.js'))) throw new Error(`${dist}/live-visitors.js is missing: run vite build first`);

  const assetsDir = join(PLUGIN_DIR, 'assets');
  rmSync(assetsDir, { recursive: true, force: true });
  mkdirSync(assetsDir, { recursive: true });
  const assets: string[] = [];
  for (const name of readdirSync(dist).filter((file) => /^live-visitors(-[\w-]+)?\.js$/.test(file))) {
    copyFileSync(join(dist, name), join(assetsDir, name));
    assets.push(name);
  }
  const locales = join(dist, 'locales');
  if (existsSync(locales)) {
    mkdirSync(join(assetsDir, 'locales'));
    for (const name of readdirSync(locales).filter((file) => file.endsWith('.js'))) {
      copyFileSync(join(locales, name), join(assetsDir, 'locales', name));
      assets.push(`locales/${name}`);
    }
  }

  mkdirSync(dirname(zipPath), { recursive: true });
  rmSync(zipPath, { force: true });
  // -X: no extra file attributes, so the same files make the same zip.
  execFileSync('zip', ['-q', '-r', '-X', zipPath, 'live-visitors'], { cwd: HERE });
  return { zipPath, zipBytes: statSync(zipPath).size, assets };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const build = buildWordPressPlugin();
  console.log(`WordPress plugin: ${build.zipPath} (${build.zipBytes.toLocaleString('en')} B, ${build.assets.length} script files)`);
}
