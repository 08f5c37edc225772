import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'vite';
import { README_SCRIPT_URL, readmeSnippet } from '../test/support/readme-snippet.js';
import { FEATURES, gzipWithout } from './feature-cost.js';
import { builtFileSizes } from './size-budgets.js';
import { kilobytes, printTable, ratio } from './table.js';

const BUNDLE = resolve('dist/live-visitors.js');

async function buildFloor(entry: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'live-visitors-floor-'));
  await build({
    configFile: resolve('vite.config.ts'),
    logLevel: 'silent',
    build: {
      outDir: directory,
      emptyOutDir: true,
      sourcemap: false,
      lib: { entry: resolve(entry), formats: ['es'], fileName: () => 'live-visitors.js' },
    },
  });
  return join(directory, 'live-visitors.js');
}

function compressed(bytes: Buffer) {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

export async function benchSize(): Promise<void> {
  const ours = compressed(await readFile(BUNDLE));
  // The floor we build on, and the one the budget assumed (Lit with its template engine).
  const floor = compressed(await readFile(await buildFloor('bench/floor-reactive-element.ts')));
  const litElement = compressed(await readFile(await buildFloor('bench/floor-lit-element.ts')));
  const row = (file: string, size: ReturnType<typeof compressed>) => ({
    file,
    minified: kilobytes(size.raw),
    gzip: kilobytes(size.gzip),
    brotli: kilobytes(size.brotli),
    'gzip vs floor': ratio(size.gzip, floor.gzip),
  });
  printTable('Size of the script-tag bundle (gzip level 9, brotli quality 11)', [
    row('bare ReactiveElement, what we build on (floor)', floor),
    row('bare LitElement, with lit-html templates', litElement),
    row('dist/live-visitors.js', ours),
    {
      ...row('ours above the floor', { raw: ours.raw - floor.raw, gzip: ours.gzip - floor.gzip, brotli: ours.brotli - floor.brotli }),
      'gzip vs floor': '',
    },
    // What every page carries: the few inline lines that fetch the bundle when the page allows.
    {
      ...row("the README's snippet, inline in each page", compressed(Buffer.from(readmeSnippet(README_SCRIPT_URL).script))),
      'gzip vs floor': '',
    },
  ]);
  await benchFeatureCosts();
  await benchLanguageFiles();
  await benchBudgets();
}

/** Every file of the script-tag build against its budget (bench/size-budgets.ts, which `npm test` checks too). */
async function benchBudgets(): Promise<void> {
  const sizes = (await builtFileSizes(resolve('dist'))).filter(({ file }) => file.startsWith('live-visitors'));
  const rows = new Map<string, { gzip: number; budget: number; files: number }>();
  for (const { gzip, budget } of sizes) {
    const name = budget?.name ?? 'NO BUDGET';
    const row = rows.get(name);
    // Language files share one budget: the largest of them is the one that counts.
    rows.set(name, { gzip: Math.max(gzip, row?.gzip ?? 0), budget: budget?.bytes ?? 0, files: (row?.files ?? 0) + 1 });
  }
  const table = [...rows].map(([file, { gzip, budget, files }]) => ({
    file: files > 1 ? `${file}, largest of ${files}` : file,
    gzip: `${gzip} B`,
    budget: `${budget} B`,
    'of budget': ratio(gzip, budget),
    verdict: gzip <= budget ? 'within' : 'OVER',
  }));
  printTable('Budgets of the script-tag build (gzip level 9; test/bundle-budget.test.ts checks the same)', table);
  // The other tables still print, but the run fails: a size regression must not pass unnoticed.
  if (table.some(({ verdict }) => verdict === 'OVER')) process.exitCode = 1;
}

/** What each feature adds: the bundle (without its source map line) rebuilt with the feature's module replaced by a do-nothing stand-in. */
async function benchFeatureCosts(): Promise<void> {
  const full = await gzipWithout([]);
  const rows = [];
  for (const [feature, modules] of Object.entries(FEATURES)) {
    const without = await gzipWithout(modules);
    rows.push({ feature, 'gzip without it': `${without} B`, 'it costs': `${full - without} B` });
  }
  const bare = await gzipWithout(Object.values(FEATURES).flat());
  rows.push({ feature: 'all of them together', 'gzip without it': `${bare} B`, 'it costs': `${full - bare} B` });
  printTable(`What each feature costs in dist/live-visitors.js (gzip level 9; ${full} B with all)`, rows);
}

/** The language files beside the bundle, fetched only by pages in their language. */
async function benchLanguageFiles(): Promise<void> {
  const directory = resolve('dist');
  const files = (await readdir(directory)).filter((file) => /^live-visitors-lang-[\w-]+\.js$/.test(file)).sort();
  const sizes = await Promise.all(files.map(async (file) => ({ file, ...compressed(await readFile(join(directory, file))) })));
  const gzips = sizes.map(({ gzip }) => gzip);
  printTable(`On-demand language files (dist/live-visitors-lang-<tag>.js, ${files.length} files)`, [
    ...sizes.map(({ file, raw, gzip }) => ({ file, minified: `${raw} B`, gzip: `${gzip} B` })),
    { file: 'largest', minified: '', gzip: `${Math.max(...gzips)} B` },
  ]);
}
