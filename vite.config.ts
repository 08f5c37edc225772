import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { emulatorPlugin } from './demo/emulator-plugin.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Squeezes the whitespace and comments out of the element's css`` template: bytes every shop pays for. */
function minifyStyles(): Plugin {
  return {
    name: 'live-visitors:minify-styles',
    apply: 'build',
    transform(code, id) {
      if (!id.endsWith('.styles.ts')) return null;
      // Only the insides of one template literal shrink; `map: null` keeps the source map of the rest.
      const minified = code.replace(/css`([^`]*)`/g, (_, body: string) => {
        const compact = body
          .replace(/\/\*[^]*?\*\//g, '')
          .replace(/\s+/g, ' ')
          .replace(/\s*([{}:;,>])\s*/g, '$1')
          .replace(/;}/g, '}')
          .trim();
        return `css\`${compact}\``;
      });
      return { code: minified, map: null };
    },
  };
}

/**
 * One config for two jobs:
 * - `vite` (npm start) serves the marketers' demo from demo/, with the emulated service on the
 *   same origin and the built script-tag bundle at /live-visitors.js;
 * - `vite build` writes dist/live-visitors.js, the self-contained, minified script-tag bundle
 *   (Lit included). Not Vite's library mode: it leaves ES output unminified.
 * The library build for bundler users is plain `tsc` (tsconfig.build.json), which keeps Lit external.
 */
export default defineConfig({
  root: here('demo'),
  publicDir: here('dist'),
  plugins: [minifyStyles(), emulatorPlugin()],
  server: { host: '127.0.0.1', open: false },
  build: {
    outDir: here('dist'),
    emptyOutDir: false,
    target: 'es2022',
    minify: 'oxc',
    sourcemap: true,
    modulePreload: false,
    copyPublicDir: false,
    rolldownOptions: {
      input: here('src/index.ts'),
      preserveEntrySignatures: 'exports-only',
      output: { format: 'es', entryFileNames: 'live-visitors.js' },
    },
  },
});
