import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minify } from 'terser';
import { defineConfig, type Plugin } from 'vite';
import { emulatorPlugin } from './demo/emulator-plugin.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Squeezes the whitespace and comments out of the element's stylesheet literal: bytes every shop pays for. */
export function minifyStyles(): Plugin {
  return {
    name: 'live-visitors:minify-styles',
    apply: 'build',
    transform(code, id) {
      if (!id.endsWith('.styles.ts')) return null;
      // Only the insides of one template literal shrink; `map: null` keeps the source map of the rest.
      const minified = code.replace(/unsafeCSS\(`([^`]*)`\)/g, (_, body: string) => {
        const compact = body
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/\s+/g, ' ')
          .replace(/\s*([{}:;,>+])\s*/g, '$1')
          .replace(/;}/g, '}')
          .replace(/([ :,(])0\./g, '$1.')
          .trim();
        return `unsafeCSS(\`${compact}\`)`;
      });
      return { code: minified, map: null };
    },
  };
}

/**
 * The production build: `src/dev-mode.ts` becomes `false`, so the development build's long
 * console messages fall out of the bundle (the library build for bundlers does the same).
 */
export function productionMode(): Plugin {
  return {
    name: 'live-visitors:production-mode',
    apply: 'build',
    load: (id) => (id.endsWith('/src/dev-mode.ts') ? 'export const DEV_MODE = false;' : null),
  };
}

/**
 * The script-tag build's languages: each `src/locales/<tag>.ts` but English becomes
 * `live-visitors-lang-<tag>.js` beside the bundle (one flat folder, as Shopify's assets/ needs),
 * and the bundle loads them with one template import,
 * resolved from its own URL (so a CDN copy finds its own). Vite's usual rewrite of the 35 literal
 * imports in `on-demand.ts` costs 225 B gzip more, and its preload helper 1.9 KB.
 */
function languageFiles(): Plugin {
  const directory = here('src/locales');
  const languages = readdirSync(directory)
    .map((file) => /^([a-z]{2}(?:-[A-Z][a-z]{3})?)\.ts$/.exec(file)?.[1])
    .filter((tag): tag is string => tag !== undefined && tag !== 'en');
  return {
    name: 'live-visitors:language-files',
    apply: 'build',
    buildStart() {
      for (const tag of languages) this.emitFile({ type: 'chunk', id: `${directory}/${tag}.ts`, fileName: `live-visitors-lang-${tag}.js` });
    },
    load(id) {
      if (!id.endsWith('/src/locales/on-demand.ts')) return null;
      // The list and a loader, as src/locales/on-demand.ts exports them: `import()` only for a listed language.
      return [
        `export const ON_DEMAND_LANGUAGES = ${JSON.stringify(languages.join(' '))}.split(' ');`,
        `export const loadLanguage = (key) => ON_DEMAND_LANGUAGES.includes(key) ? import(/* @vite-ignore */ \`./live-visitors-lang-\${key}.js\`) : undefined;`,
      ].join('\n');
    },
  };
}

/**
 * `live-visitors-loader.js`, the classic script that adds the module (src/loader.ts): an entry of
 * its own that imports and exports nothing, so its ES output is a plain script too (the browser
 * suite loads it as one, by `document.createElement('script')`).
 */
function classicLoader(): Plugin {
  return {
    name: 'live-visitors:classic-loader',
    apply: 'build',
    buildStart() {
      this.emitFile({ type: 'chunk', id: here('src/loader.ts'), fileName: 'live-visitors-loader.js' });
    },
    generateBundle(_, bundle) {
      const loader = bundle['live-visitors-loader.js'];
      if (loader?.type === 'chunk' && (loader.imports.length || loader.exports.length || loader.dynamicImports.length))
        this.error('live-visitors-loader.js must stay a classic script: no imports, no exports');
    },
  };
}

/**
 * A second minifier after oxc's: terser inlines and rewrites what oxc leaves. Measured on this
 * bundle, the two together are 54 B smaller in gzip than oxc alone and 102 B smaller than terser
 * alone; a third compress pass takes 7 B more (`npm run bench` prints the size as shipped).
 */
function terserAfterOxc(): Plugin {
  return {
    name: 'live-visitors:terser-after-oxc',
    apply: 'build',
    async generateBundle(options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        // The source map is its own asset by now: terser maps its output through oxc's map to the
        // sources. Written for `sourcemap: true` (a .map file beside the chunk) or false, nothing else.
        const map = bundle[`${chunk.fileName}.map`];
        const chained = map?.type === 'asset' ? map : null;
        if (options.sourcemap && (options.sourcemap !== true || !chained))
          this.error('terser after oxc needs build.sourcemap true or false');
        const result = await minify(chunk.code, {
          module: true,
          ecma: 2020,
          // `keep_fargs: false` drops unused parameters: only `Function.length` could tell, and
          // neither Lit nor this code reads it (11 B gzip).
          compress: { passes: 3, keep_fargs: false },
          sourceMap: chained ? { content: String(chained.source), url: basename(chained.fileName), includeSources: true } : false,
        });
        if (typeof result.code !== 'string') this.error('terser returned no code');
        chunk.code = result.code;
        if (chained) chained.source = String(result.map);
      }
    },
  };
}

/**
 * One config for two jobs:
 * - `vite` (npm start) serves the marketers' demo from demo/, with the emulated service on the
 *   same origin and the built script-tag bundle at /live-visitors.js;
 * - `vite build` writes dist/live-visitors.js, the minified script-tag bundle (src/script-tag.ts:
 *   Lit included, production build), with its language files and lazy chunks beside it as
 *   dist/live-visitors-<name>.js. Library mode
 *   for its output without Vite's preload helper; oxc minifies, then terser (below).
 * The package's builds for bundler users are vite.library.config.ts (production) and `tsc`
 * (tsconfig.build.json: the development build and the type declarations), both keeping Lit external.
 */
export default defineConfig({
  root: here('demo'),
  publicDir: here('dist'),
  plugins: [productionMode(), languageFiles(), classicLoader(), minifyStyles(), terserAfterOxc(), emulatorPlugin()],
  server: { host: '127.0.0.1', open: false },
  build: {
    outDir: here('dist'),
    emptyOutDir: false,
    target: 'es2022',
    minify: 'oxc',
    sourcemap: true,
    // Vite would print the size before terser's pass; `npm run bench` measures the file as shipped.
    reportCompressedSize: false,
    copyPublicDir: false,
    // Library mode: an app build would wrap each dynamic import in Vite's preload helper (1.9 KB
    // gzip, with `modulePreload: false` too), and our dynamic imports are all lazy files of ours.
    lib: { entry: here('src/script-tag.ts'), formats: ['es'], fileName: () => 'live-visitors.js' },
    rolldownOptions: {
      // Terser's second pass is most of the build's time by design (above), so rolldown's warning
      // about slow plugins would print on every `npm start`, before the demo's address.
      checks: { bundlerTimings: false },
      // The lazy files (experiments, placement) import what they share with the bundle from the
      // bundle, which the page has already run: 'exports-only' would split that shared code into
      // more files that every page then fetches before the bundle can run.
      preserveEntrySignatures: 'allow-extension',
      // One flat folder: a Shopify theme app extension's assets/ has no subfolders, and the same
      // layout then serves Shopify, the WordPress plugin's folder and a CDN alike.
      output: { chunkFileNames: 'live-visitors-[name].js' },
    },
  },
});
