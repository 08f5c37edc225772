import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'vite';
import { kilobytes, printTable, ratio } from './table.js';

const GZIP_BUDGET_BYTES = 9 * 1024;
const BUNDLE = resolve('dist/live-visitors.js');

async function buildFloor(entry: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'live-visitors-floor-'));
  await build({
    configFile: resolve('vite.config.ts'),
    logLevel: 'silent',
    build: { outDir: directory, emptyOutDir: true, sourcemap: false, rolldownOptions: { input: resolve(entry) } },
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
  ]);
  const verdict = ours.gzip <= GZIP_BUDGET_BYTES ? 'within' : 'OVER';
  // The other tables still print, but the run fails: a size regression must not pass unnoticed.
  if (verdict === 'OVER') process.exitCode = 1;
  console.log(`\nBudget: ${kilobytes(GZIP_BUDGET_BYTES)} gzip. dist/live-visitors.js is ${kilobytes(ours.gzip)}: ${verdict} budget.`);
}
