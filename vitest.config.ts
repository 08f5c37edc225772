import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files of every suite run side by side, from one pool: most of their time goes to waiting on
 * servers and child processes (Redis, nginx, Varnish, workerd, relays, Chromium, WordPress,
 * the typings' checkers), so one file more than there are cores keeps the cores busy. Vitest's
 * default (cores - 1) is one file at a time on two cores, and a suite kept to one file at a
 * time runs after all the others, alone.
 */
const SIDE_BY_SIDE_FILES = availableParallelism() + 1;
/**
 * Limits that only end a test that hangs: a busy machine (several engineers, CI) can make a test
 * that takes a second when idle take twenty, and that must not fail it. No test's verdict rests
 * on these; a test that bounds time derives its bound from what it measured.
 */
const HANG_LIMIT_MS = 120_000;
/**
 * Chromium files that run alone, after the rest: those that step a simulated clock through an hour
 * while tabs talk to each other in real time (locks, storage events), which beside CPU-bound files
 * fall behind the simulated steps (a tab missed another's write and asked 20 s early, or once more
 * after a 500); and those on `npm start`'s server, whose Vite compiles the demo on first request and
 * which timed out side by side.
 */
const ALONE_FILES = [
  'test/browser/long-runs.test.ts',
  'test/browser/fault-matrix.test.ts',
  'test/browser/error-events.test.ts',
  'test/browser/demo-page.test.ts',
  'test/browser/demo-install.test.ts',
  'test/browser/demo-install-actions.test.ts',
  'test/browser/accessibility.test.ts',
];

/**
 * Six suites in one `npm test`:
 * - `unit`: the element and its data layer in happy-dom, with fake timers and a stubbed fetch;
 * - `emulator` and `relay`: the server parts in Node, over real loopback HTTP;
 * - `browser`: headless Chromium (the system's, never downloaded) driven by Playwright against
 *   the built bundle and the emulator, for what happy-dom cannot prove;
 * - `typings`: the generated framework typings, with each framework's own checker on a tiny app;
 * - `integrations`: each platform's room under `integrations/` (Shopify, Tag Manager, WordPress),
 *   checked with the platform's own tools where they run offline, and in Chromium.
 */
export default defineConfig({
  resolve: {
    // @esm-bundle/chai's package "main" points at a file it does not ship.
    alias: { '@esm-bundle/chai': '@esm-bundle/chai/esm/chai.js' },
  },
  test: {
    restoreMocks: true,
    unstubGlobals: true,
    maxWorkers: SIDE_BY_SIDE_FILES,
    testTimeout: HANG_LIMIT_MS,
    hookTimeout: HANG_LIMIT_MS,
    // `expect.poll` waits for a state that a busy machine reaches late, never for a deadline.
    expect: { poll: { timeout: HANG_LIMIT_MS / 4 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          environment: 'happy-dom',
          // Node 25+ defines a global localStorage (undefined without --localstorage-file) that hides
          // happy-dom's: the element's storage must be the page's, as in a browser.
          execArgv: ['--no-experimental-webstorage'],
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser/**', 'test/typings/**'],
          server: { deps: { inline: [/@open-wc\//, 'chai-a11y-axe'] } },
        },
      },
      {
        extends: true,
        test: { name: 'emulator', environment: 'node', include: ['emulator/test/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'relay',
          environment: 'node',
          include: ['relay/test/**/*.test.ts'],
          globalSetup: ['test/browser/support/global-setup.ts', 'relay/test/support/element-files-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          environment: 'node',
          include: ['test/browser/**/*.test.ts'],
          exclude: ALONE_FILES,
          globalSetup: ['test/browser/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'browser-alone',
          environment: 'node',
          include: ALONE_FILES,
          globalSetup: ['test/browser/support/global-setup.ts'],
          // One at a time, after the rest: see ALONE_FILES.
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'typings',
          environment: 'node',
          include: ['test/typings/**/*.test.ts'],
          // One checker per core: each is a whole compiler, and these machines have two.
          maxConcurrency: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'integrations',
          environment: 'node',
          include: ['integrations/*/test/**/*.test.ts'],
          // In this order: the plugin's zip carries the bundle.
          globalSetup: ['test/browser/support/global-setup.ts', 'integrations/wordpress/test/support/plugin-zip-setup.ts'],
          // A WordPress site (MariaDB installed, PHP started, WordPress installed) per file.
          hookTimeout: 180_000,
        },
      },
    ],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'server-kit/**/*.ts', 'relay/src/**/*.ts', 'emulator/src/**/*.ts'],
      reporter: ['text', 'text-summary'],
      thresholds: { lines: 90 },
    },
  },
});
