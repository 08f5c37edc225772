import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const DIST = new URL('../../dist/', import.meta.url);
/** Theme app extension assets are one flat folder, served from Shopify's CDN under the file's own name. */
export const SHOPIFY_ASSETS = new URL('extensions/live-visitors/assets/', import.meta.url);

/** The script-tag build's files: the element, its loader, and every lazy chunk beside it (flat names). */
const isScriptTagFile = (name: string) => /^live-visitors(-[\w-]+)?\.js$/.test(name);

/**
 * Copies dist/live-visitors*.js into the extension's assets/ (emptied first, so a chunk the build
 * no longer makes is not deployed). The `sourceMappingURL` line goes: the maps are not deployed,
 * and a comment pointing at a missing file only makes browsers' tools ask for it.
 */
export async function copyShopifyAssets(): Promise<string[]> {
  const names = (await readdir(DIST)).filter(isScriptTagFile).sort();
  if (!names.includes('live-visitors.js')) throw new Error('dist/live-visitors.js is missing: run `vite build` first');
  await rm(SHOPIFY_ASSETS, { recursive: true, force: true });
  await mkdir(SHOPIFY_ASSETS, { recursive: true });
  for (const name of names) {
    const code = await readFile(new URL(name, DIST), 'utf8');
    await writeFile(new URL(name, SHOPIFY_ASSETS), code.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'));
  }
  return names;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = await copyShopifyAssets();
  console.log(`Shopify extension: ${names.length} script files copied to ${fileURLToPath(SHOPIFY_ASSETS)}`);
}
