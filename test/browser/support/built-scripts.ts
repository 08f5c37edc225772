import { readdir, readFile } from 'node:fs/promises';

const DIST = new URL('../../../dist/', import.meta.url);

/**
 * The script-tag build as a shop's server has it, by path: `/live-visitors.js` and the language
 * files beside it, `/locales/<tag>.js` (run `vite build` first).
 */
export async function builtScripts(): Promise<Map<string, string>> {
  const paths = [
    'live-visitors.js',
    ...(await readdir(new URL('locales/', DIST))).filter((name) => name.endsWith('.js')).map((name) => `locales/${name}`),
  ];
  return new Map(await Promise.all(paths.map(async (path) => [`/${path}`, await readFile(new URL(path, DIST), 'utf8')] as const)));
}
