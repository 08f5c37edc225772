import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // @esm-bundle/chai's package "main" points at a file it does not ship.
    alias: { '@esm-bundle/chai': '@esm-bundle/chai/esm/chai.js' },
  },
  test: {
    environment: 'happy-dom',
    include: ['test/**/*.test.ts'],
    exclude: ['test/browser/**'],
    server: { deps: { inline: [/@open-wc\//, 'chai-a11y-axe'] } },
    restoreMocks: true,
    unstubGlobals: true,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text', 'text-summary'],
      thresholds: { lines: 90 },
    },
  },
});
