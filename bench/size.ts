import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'vite';
import { kilobytes, printTable, ratio } from './table.js';

const GZIP_BUDGET_BYTES = 9 * 1024;
const BUNDLE = resolve('dist/live-visitors.js');

async function buildFloor(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'live-visitors-floor-'));
  await build({
    configFile: resolve('vite.config.ts'),
    logLevel: 'silent',
    build: { outDir: directory, emptyOutDir: true, sourcemap: false, rolldownOptions: { input: resolve('bench/floor-element.ts') } },
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
  const floor = compressed(await readFile(await buildFloor()));
  printTable('Size of the script-tag bundle (gzip level 9, brotli quality 11)', [
    { file: 'bare Lit element (floor)', minified: kilobytes(floor.raw), gzip: kilobytes(floor.gzip), brotli: kilobytes(floor.brotli), 'gzip vs floor': ratio(floor.gzip, floor.gzip) },
    { file: 'dist/live-visitors.js', minified: kilobytes(ours.raw), gzip: kilobytes(ours.gzip), brotli: kilobytes(ours.brotli), 'gzip vs floor': ratio(ours.gzip, floor.gzip) },
    { file: 'ours above the floor', minified: kilobytes(ours.raw - floor.raw), gzip: kilobytes(ours.gzip - floor.gzip), brotli: kilobytes(ours.brotli - floor.brotli), 'gzip vs floor': '' },
  ]);
  const verdict = ours.gzip <= GZIP_BUDGET_BYTES ? 'within' : 'OVER';
  console.log(`\nBudget: ${kilobytes(GZIP_BUDGET_BYTES)} gzip. dist/live-visitors.js is ${kilobytes(ours.gzip)}: ${verdict} budget.`);
}
