import { readdir, readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { assetsNamedByLiquid, copyShopifyAssets, modulesReachable, SHOPIFY_ASSETS } from '../build.js';

/**
 * assets/ carries what the blocks load and nothing else: the module the Liquid names, and every
 * file it imports, statically or lazily. The classic loader (for Tag Manager and code-injection
 * fields) is never loaded by a block, so a merchant's theme does not get it.
 */
let shipped: string[];
beforeAll(async () => {
  await copyShopifyAssets();
  shipped = (await readdir(SHOPIFY_ASSETS)).sort();
});

describe("the extension's assets", () => {
  it('are the element the blocks load and its lazy files, without the classic loader', async () => {
    expect(await assetsNamedByLiquid()).toEqual(['live-visitors.js']);
    expect(shipped).toContain('live-visitors.js');
    expect(shipped).toContain('live-visitors-experiments.js');
    expect(shipped).toContain('live-visitors-lang-de.js');
    expect(shipped).not.toContain('live-visitors-loader.js');
    expect(shipped.filter((name) => name.startsWith('live-visitors-lang-')).length).toBeGreaterThanOrEqual(34);
  });

  it('leave no import of a shipped file unanswered', async () => {
    for (const name of shipped) {
      const code = await readFile(new URL(name, SHOPIFY_ASSETS), 'utf8');
      for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']\.\/([^"'`]+)["']/g)) {
        expect(shipped, `${name} imports ./${match[1]}`).toContain(match[1]);
      }
    }
  });
});

describe('modulesReachable', () => {
  const files = new Map([
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the bundle's own text, a template literal inside a string.
    ['app.js', 'import{x}from"./shared.js";const lazy=()=>import("./lazy.js");import(`./lang-${code}.js`)'],
    ['shared.js', 'export const x=1'],
    ['lazy.js', 'import{x}from "./shared.js"'],
    ['lang-de.js', ''],
    ['lang-pt-BR.js', ''],
    ['loader.js', 'document.createElement("script").src="./app.js"'],
    ['unused.js', 'import("./app.js")'],
  ]);

  it.each([
    [['app.js'], ['app.js', 'lang-de.js', 'lang-pt-BR.js', 'lazy.js', 'shared.js']],
    [['lazy.js'], ['lazy.js', 'shared.js']],
    [['shared.js'], ['shared.js']],
    [['missing.js'], []],
  ])('from %j reaches %j', (roots, reached) => {
    expect(modulesReachable(roots, files)).toEqual(reached);
  });

  it('follows a cycle once', () => {
    expect(
      modulesReachable(
        ['a.js'],
        new Map([
          ['a.js', 'import"./b.js";import("./a.js")'],
          ['b.js', 'import("./a.js")'],
        ]),
      ),
    ).toEqual(['a.js', 'b.js']);
  });
});
