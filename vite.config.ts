import { defineConfig } from 'vite';

/**
 * One config for two jobs:
 * - `vite` (npm start) serves the marketers' demo from demo/;
 * - `vite build` writes dist/live-visitors.js, the self-contained script-tag bundle (Lit included).
 * The library build for bundler users is plain `tsc` (tsconfig.build.json), which keeps Lit external.
 */
export default defineConfig({
  server: { host: '127.0.0.1', open: false },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2021',
    minify: true,
    sourcemap: true,
    lib: {
      entry: 'src/index.ts',
      formats: ['es'],
      fileName: () => 'live-visitors.js',
    },
  },
});
