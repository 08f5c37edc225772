import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Offense } from '@shopify/theme-check-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyShopifyAssets } from '../build.js';
import { EXTENSION_PATH } from './support/extension.js';

const CONFIG = fileURLToPath(new URL('../theme-check.yml', import.meta.url));
let scratch: string;
let themeCheckRun: typeof import('@shopify/theme-check-node').themeCheckRun;

beforeAll(async () => {
  await copyShopifyAssets();
  scratch = await mkdtemp(join(tmpdir(), 'live-visitors-theme-check-'));
  // The checker first tries to download Shopify's latest Liquid docs and schemas (GitHub), then its
  // cache, then the copies it ships. An empty cache and a docs root that does not exist make it use
  // the shipped copies: no network, and the same verdict for the same installed version.
  process.env.XDG_CACHE_HOME = join(scratch, 'cache');
  process.env.SHOPIFY_TLD_ROOT = join(scratch, 'no-docs-here');
  ({ themeCheckRun } = await import('@shopify/theme-check-node'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Offenses as one readable line each: `severity check file: message` (0 error, 1 warning, 2 info). */
const lines = (offenses: readonly Offense[]) =>
  offenses.map((offense) => `${offense.severity} ${offense.check} ${offense.uri.split('/').slice(-2).join('/')}: ${offense.message}`);

it("passes Shopify's recommended checks for theme app extensions with no error and no warning", async () => {
  const log: string[] = [];
  const run = await themeCheckRun(EXTENSION_PATH, CONFIG, (line) => log.push(line));
  // The app context and its own checks, not the theme ones: the config really is theme-check:theme-app-extension.
  expect(run.config.context).toBe('app');
  const checks = run.config.checks.map((check) => check.meta.code);
  expect(checks).toEqual(
    expect.arrayContaining(['AppBlockValidTags', 'AppBlockMissingSchema', 'AssetSizeAppBlockJavaScript', 'ValidSchemaTranslations']),
  );
  expect(run.theme.map((file) => file.uri.slice(file.uri.indexOf('/live-visitors/') + 15)).sort()).toEqual([
    'blocks/live-visitors-embed.liquid',
    'blocks/live-visitors.liquid',
    'locales/de.json',
    'locales/de.schema.json',
    'locales/en.default.json',
    'locales/en.default.schema.json',
    'snippets/live-visitors-element.liquid',
    'snippets/live-visitors-loader.liquid',
  ]);
  console.info(
    `theme-check: ${run.config.checks.length} checks, ${run.theme.length} files, ${run.offenses.length} offenses`,
    lines(run.offenses),
  );
  expect(lines(run.offenses.filter((offense) => offense.severity <= 1))).toEqual([]);
  expect(log.join('\n')).toMatch(/Loaded fallback resource/);
});

it('reports the offenses of a deliberately broken copy, so the check above can fail', async () => {
  const broken = join(scratch, 'broken');
  await cp(EXTENSION_PATH, broken, { recursive: true });
  const block = join(broken, 'blocks/live-visitors.liquid');
  const source = await readFile(block, 'utf8');
  await writeFile(
    block,
    source
      .replace(
        "{%- render 'live-visitors-loader' -%}",
        "{% include 'live-visitors-loader' %}<script src=\"{{ 'missing.js' | asset_url }}\"></script>",
      )
      .replace('"t:settings.min.label"', '"t:settings.nope.label"'),
  );
  const embed = join(broken, 'blocks/live-visitors-embed.liquid');
  const embedSource = await readFile(embed, 'utf8');
  await writeFile(embed, embedSource.slice(0, embedSource.indexOf('{% schema %}')));
  const run = await themeCheckRun(broken, CONFIG);
  expect(new Set(run.offenses.filter((offense) => offense.severity === 0).map((offense) => offense.check))).toEqual(
    new Set(['AppBlockValidTags', 'AppBlockMissingSchema', 'MissingAsset', 'ParserBlockingScript', 'ValidSchemaTranslations']),
  );
});
