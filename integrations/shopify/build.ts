import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const DIST = new URL('../../dist/', import.meta.url);
const EXTENSION = new URL('extensions/live-visitors/', import.meta.url);
/** Theme app extension assets are one flat folder, served from Shopify's CDN under the file's own name. */
export const SHOPIFY_ASSETS = new URL('assets/', EXTENSION);

/** The script-tag build's files: the element, its loader, and every lazy chunk beside it (flat names). */
const isScriptTagFile = (name: string) => /^live-visitors(-[\w-]+)?\.js$/.test(name);

/** The files the extension's Liquid names through `asset_url`: where the module graph starts. */
export async function assetsNamedByLiquid(): Promise<string[]> {
  const names = new Set<string>();
  for (const folder of ['blocks/', 'snippets/']) {
    const directory = new URL(folder, EXTENSION);
    for (const file of await readdir(directory)) {
      const liquid = await readFile(new URL(file, directory), 'utf8');
      for (const match of liquid.matchAll(/['"]([\w.-]+)['"]\s*\|\s*asset_url/g)) names.add(match[1] as string);
    }
  }
  return [...names].sort();
}

/**
 * The files reachable from `roots` through relative imports, static (`from"./x.js"`) or dynamic,
 * where a template literal (`./live-visitors-lang-${lang}.js`) reaches every file of its shape.
 * What nothing reaches (the classic loader, for pages without a module script) is not deployed.
 */
export function modulesReachable(roots: readonly string[], files: ReadonlyMap<string, string>): string[] {
  const reached = new Set<string>();
  const visit = (name: string) => {
    const code = files.get(name);
    if (code === undefined || reached.has(name)) return;
    reached.add(name);
    for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)(["'`])\.\/([^"'`]+)\1/g)) {
      const specifier = match[2] as string;
      const shape = new RegExp(
        `^${specifier
          .split(/\$\{[^}]*\}/)
          .map(escapeRegExp)
          .join('[\\w-]+')}$`,
      );
      for (const other of files.keys()) if (shape.test(other)) visit(other);
    }
  };
  for (const root of roots) visit(root);
  return [...reached].sort();
}

/**
 * Copies from dist/ into the extension's assets/ (emptied first, so a chunk the build no longer
 * makes is not deployed) the files the blocks load: the element and what it imports. The
 * `sourceMappingURL` line goes: the maps are not deployed, and a comment pointing at a missing
 * file only makes browsers' tools ask for it.
 */
export async function copyShopifyAssets(): Promise<string[]> {
  const files = new Map<string, string>();
  for (const name of (await readdir(DIST)).filter(isScriptTagFile)) files.set(name, await readFile(new URL(name, DIST), 'utf8'));
  const roots = await assetsNamedByLiquid();
  for (const root of roots) if (!files.has(root)) throw new Error(`dist/${root} is missing: run \`vite build\` first`);
  const names = modulesReachable(roots, files);
  await rm(SHOPIFY_ASSETS, { recursive: true, force: true });
  await mkdir(SHOPIFY_ASSETS, { recursive: true });
  for (const name of names) {
    await writeFile(new URL(name, SHOPIFY_ASSETS), (files.get(name) as string).replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'));
  }
  return names;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = await copyShopifyAssets();
  console.log(`Shopify extension: ${names.length} script files copied to ${fileURLToPath(SHOPIFY_ASSETS)}`);
}
