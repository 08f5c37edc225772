import { readdir, readFile } from 'node:fs/promises';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import { copyShopifyAssets, SHOPIFY_ASSETS } from '../build.js';

/**
 * Shopify's limit for a theme app extension's JavaScript file: 10,000 B compressed (the
 * AssetSizeAppBlockJavaScript check; "10 KB gzipped" in its documentation). Run from Node the
 * checker is given no file sizes, so the test measures every file it deploys itself, gzip at
 * zlib's default level (what most CDNs send) and Brotli for comparison.
 */
const SHOPIFY_JAVASCRIPT_LIMIT = 10_000;

let names: string[];
beforeAll(async () => {
  await copyShopifyAssets();
  names = (await readdir(SHOPIFY_ASSETS)).sort();
});

it('deploys the element and every language file flat in assets/, where the element finds them from its own URL', async () => {
  expect(names).toContain('live-visitors.js');
  expect(names).toContain('live-visitors-lang-de.js');
  expect(names.every((name) => /^live-visitors(-[\w-]+)?\.js$/.test(name))).toBe(true);
  const core = await readFile(new URL('live-visitors.js', SHOPIFY_ASSETS), 'utf8');
  expect(core).toContain('live-visitors-lang-');
  expect(core).not.toContain('sourceMappingURL');
});

it("keeps every JavaScript file under Shopify's 10,000 B compressed", async () => {
  const rows = await Promise.all(
    names.map(async (name) => {
      const code = await readFile(new URL(name, SHOPIFY_ASSETS));
      return { name, raw: code.length, gzip: gzipSync(code).length, brotli: brotliCompressSync(code).length };
    }),
  );
  const largest = [...rows].sort((a, b) => b.gzip - a.gzip).slice(0, 4);
  console.info(
    [
      `file | raw B | gzip B | brotli B | gzip / ${SHOPIFY_JAVASCRIPT_LIMIT} B`,
      ...largest.map(
        (row) => `${row.name} | ${row.raw} | ${row.gzip} | ${row.brotli} | ${(row.gzip / SHOPIFY_JAVASCRIPT_LIMIT).toFixed(3)}`,
      ),
    ].join('\n'),
  );
  for (const row of rows) expect(row.gzip, row.name).toBeLessThanOrEqual(SHOPIFY_JAVASCRIPT_LIMIT);
});
