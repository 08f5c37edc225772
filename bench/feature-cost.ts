import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'vite';

/** The features whose cost `npm run bench` prints, each with the source module(s) that carry it. */
export const FEATURES: Record<string, string[]> = {
  // The disclosure is a file of its own (src/disclosure.ts): the bundle pays only for loading it.
  'disclosure (hover, focus, tap, Escape), loaded on demand': ['src/disclosure-on-demand.ts'],
  'steady display': ['src/steady-display.ts'],
  // Holdout and impressions are a file of their own (src/experiments.ts): the bundle pays only for loading it.
  'holdout and impressions, loaded on demand': ['src/experiments-on-demand.ts'],
  'placement queue (window.liveVisitors)': ['src/placement-queue.ts'],
  'on-demand languages (loader for 35)': ['src/locales/catalog.ts'],
};

/** Replaces each source module by its stand-in in bench/without/, which does nothing. */
function without(modules: string[]): Plugin {
  const stubs = new Map(modules.map((module) => [resolve(module), resolve('bench/without', module.split('/').at(-1)!)]));
  return {
    name: 'live-visitors:without',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved && stubs.has(resolved.id) ? stubs.get(resolved.id)! : null;
    },
  };
}

/** Gzip bytes (level 9, as the size table) of the script-tag bundle built without `modules`. */
export async function gzipWithout(modules: string[]): Promise<number> {
  const directory = await mkdtemp(join(tmpdir(), 'live-visitors-without-'));
  try {
    await build({
      configFile: resolve('vite.config.ts'),
      logLevel: 'silent',
      plugins: [without(modules)],
      // The config's own source map setting: the file then ends as the shipped one does, with its
      // sourceMappingURL line, so "with all" is the size the budget is checked against.
      build: { outDir: directory, emptyOutDir: true },
    });
    return gzipSync(await readFile(join(directory, 'live-visitors.js')), { level: 9 }).length;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
