// @vitest-environment node
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltFileSize, builtFileSizes, GZIP_BUDGETS } from '../bench/size-budgets.js';

// The script-tag build, built here (the unit suite has no build of its own) exactly as
// `npm run build` writes it, and each file against its gzip budget (bench/size-budgets.ts).

let directory: string;
let sizes: BuiltFileSize[];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'live-visitors-budget-'));
  // Vitest runs with NODE_ENV=test, which would pick Lit's development build: measure what shops get.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
      logLevel: 'silent',
      mode: 'production',
      build: { outDir: directory, emptyOutDir: true },
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  sizes = await builtFileSizes(directory);
}, 120_000);

afterAll(() => rm(directory, { recursive: true, force: true }));

describe('the script-tag build', () => {
  it('writes the bundle, its lazy files and 35 language files, each with a budget', () => {
    expect(sizes.filter(({ budget }) => !budget).map(({ file }) => file)).toEqual([]);
    for (const { file } of GZIP_BUDGETS) expect(sizes.some((size) => file.test(size.file))).toBe(true);
    expect(sizes.filter(({ file }) => file.startsWith('live-visitors-lang-'))).toHaveLength(35);
  });

  it('keeps every file within its gzip budget', () => {
    const over = sizes
      .filter(({ gzip, budget }) => gzip > budget!.bytes)
      .map(({ file, gzip, budget }) => `${file}: ${gzip} B > ${budget!.bytes} B`);
    expect(over).toEqual([]);
  });

  it('the bundle runs alone: it imports no other file before running (lazy files only by import())', async () => {
    const bundle = await readFile(join(directory, 'live-visitors.js'), 'utf8');
    expect(bundle).not.toMatch(/\bimport\s*[{*\w"]|\bfrom\s*"/);
    expect([...bundle.matchAll(/import\("\.\/([\w-]+\.js)"\)/g)].map((match) => match[1]).sort()).toEqual([
      'live-visitors-disclosure.js',
      'live-visitors-experiments.js',
      'live-visitors-placement.js',
    ]);
  });
});
