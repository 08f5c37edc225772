import { defineConfig } from 'tsdown';

/**
 * Four entries: `index` is the Fetch handler and its config, `node` adds the Node server, the
 * file loader and the command, `cloudflare` the Durable Object store, `cli` is the bin (its
 * shebang kept, made executable). The wire contract, the widget's back-off and the server kit
 * live outside this package and are bundled in; srvx, a dependency, stays an import, and so does
 * workerd's own `cloudflare:workers`.
 */
export default defineConfig({
  entry: ['src/index.ts', 'src/node.ts', 'src/cloudflare.ts', 'src/cli.ts'],
  outDir: 'dist',
  format: 'esm',
  platform: 'node',
  target: 'node24',
  dts: true,
  external: ['srvx', /^cloudflare:/],
  outputOptions: {
    // `node` re-exports `index`; without this group rolldown gives that re-export module a chunk of its own, empty.
    advancedChunks: { groups: [{ name: 'relay', test: /relay\/src\/index\.ts$/ }] },
  },
});
