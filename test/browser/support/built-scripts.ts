import { readdir, readFile } from 'node:fs/promises';

const DIST = new URL('../../../dist/', import.meta.url);

/**
 * The script-tag build as a shop's server has it, by path: `/live-visitors.js` and every file
 * beside it in the one flat folder (`/live-visitors-lang-<tag>.js`, the lazy chunks, the classic
 * loader), as Shopify's assets/ holds them (run `vite build` first).
 */
export async function builtScripts(): Promise<Map<string, string>> {
  const paths = (await readdir(DIST)).filter((name) => /^live-visitors(?:-[\w-]+)?\.js$/.test(name));
  return new Map(await Promise.all(paths.map(async (path) => [`/${path}`, await readFile(new URL(path, DIST), 'utf8')] as const)));
}
