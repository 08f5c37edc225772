import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { snippetParts } from '../../demo/snippet-parts.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The plugin's folder: its root is the folder WordPress unpacks into `wp-content/plugins/`. */
export const PLUGIN_DIR = join(HERE, 'live-visitors');
const REPOSITORY_DIST = join(HERE, '..', '..', 'dist');
const DEFAULT_ZIP = join(HERE, 'build', 'live-visitors.zip');
const README = join(HERE, '..', '..', 'README.md');
/** The script URL in the README's snippet; the plugin puts its own copy's URL in its place. */
export const README_SCRIPT_URL = 'https://your-cdn.example/live-visitors.js';

/**
 * The README's loader (the inline script of its quick start, without the tag), for the plugin to
 * print with its own script URL: the plugin loads the element exactly as the README says, and
 * follows it when it changes.
 */
export function readmeLoader(readme = readFileSync(README, 'utf8')): string {
  const block = /## Quick start[\s\S]*?```html\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const script = snippetParts(block).script;
  if (!script?.includes(`'${README_SCRIPT_URL}'`)) throw new Error(`README.md: no quick-start <script> adding '${README_SCRIPT_URL}'`);
  return script.replace(/^<script>\n?/, '').replace(/<\/script>$/, '');
}

export interface PluginBuild {
  /** The installable zip (one `live-visitors/` folder inside). */
  readonly zipPath: string;
  readonly zipBytes: number;
  /** The element's files copied into the plugin's `assets/`, relative to it. */
  readonly assets: readonly string[];
}

/**
 * Copies the built element into the plugin (`assets/`: `live-visitors.js` and its `live-visitors-*.js`
 * siblings, or the older `locales/` folder beside it) with the README's loader, then zips the plugin folder. Source maps stay
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

  writeFileSync(join(assetsDir, 'loader.js'), readmeLoader());
  assets.push('loader.js');

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
