import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { minifyStyles, productionMode } from './vite.config.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The package's production build for bundler users (`dist/lib`, the default export condition):
 * one module per source module, Lit left to the shop's bundler, and `src/dev-mode.ts` set to
 * false so the long console messages are gone before the shop's own minifier runs. The
 * development build (`dist/lib/development`, the `development` condition) and the type
 * declarations are plain `tsc` (tsconfig.build.json).
 */
export default defineConfig({
  plugins: [productionMode(), minifyStyles()],
  build: {
    outDir: here('dist/lib'),
    emptyOutDir: false,
    target: 'es2022',
    minify: false,
    sourcemap: true,
    reportCompressedSize: false,
    copyPublicDir: false,
    // Library mode: an app build would wrap the language files' dynamic imports in Vite's preload
    // helper, which the shop's own bundler would then meet twice.
    lib: { entry: { index: here('src/index.ts'), define: here('src/define.ts') }, formats: ['es'] },
    rolldownOptions: {
      external: [/^@lit\//],
      output: { preserveModules: true, preserveModulesRoot: here('src'), entryFileNames: '[name].js' },
    },
  },
});
