import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { APP_BLOCK_HANDLE, APP_EMBED_HANDLE, themeEditorLinks } from '../../../relay/src/shopify-app/admin-page.js';
import {
  BLOCK_FILES,
  type BlockFile,
  type BlockSchema,
  localeFiles,
  readBlock,
  readLocale,
  type SchemaSetting,
  schemaOf,
  translation,
} from './support/extension.js';

/** Shopify's JSON schema of settings, as the theme checker ships it: which properties each setting type may have. */
async function settingDefinitions(): Promise<Record<string, { properties?: Record<string, unknown> }>> {
  const path = createRequire(import.meta.url).resolve('@shopify/theme-check-docs-updater/data/setting.json');
  return (JSON.parse(await readFile(path, 'utf8')) as { definitions: Record<string, { properties?: Record<string, unknown> }> })
    .definitions;
}

const INPUT_TYPES = ['text', 'textarea', 'number', 'range', 'checkbox', 'select', 'radio', 'color', 'url'];
const SIDEBAR_TYPES = ['header', 'paragraph'];
const STANDARD_INPUT_FIELDS = ['type', 'id', 'label', 'default', 'info', 'visible_if'];
/** Shopify: a range has at most 101 steps, and its default is one of them. */
const MAX_RANGE_STEPS = 101;
/** Shopify: a block's name is at most 25 characters. */
const MAX_NAME_LENGTH = 25;

/** Every problem of one setting, as a theme editor would refuse it; empty when it is valid. */
function settingProblems(setting: SchemaSetting, allowed: readonly string[]): string[] {
  const problems: string[] = [];
  const where = setting.id ?? setting.type;
  for (const field of Object.keys(setting))
    if (!allowed.includes(field)) problems.push(`${where}: ${field} is not a property of ${setting.type}`);
  if (SIDEBAR_TYPES.includes(setting.type)) {
    if (!setting.content) problems.push(`${where}: a ${setting.type} needs content`);
    return problems;
  }
  if (!INPUT_TYPES.includes(setting.type)) return [...problems, `${where}: unknown type ${setting.type}`];
  if (!setting.id || !/^[a-z][a-z0-9_]*$/.test(setting.id)) problems.push(`${where}: id must be lower-case letters, digits and _`);
  if (!setting.label) problems.push(`${where}: a label is required`);
  const value = setting.default;
  switch (setting.type) {
    case 'range': {
      const { min, max, step = 1 } = setting;
      if (typeof min !== 'number' || typeof max !== 'number' || typeof value !== 'number')
        return [...problems, `${where}: a range needs min, max and default`];
      if (min >= max) problems.push(`${where}: min must be below max`);
      if ((max - min) / step > MAX_RANGE_STEPS) problems.push(`${where}: more than ${MAX_RANGE_STEPS} steps`);
      if (Math.abs(step * 10 - Math.round(step * 10)) > 1e-9) problems.push(`${where}: step must be a multiple of 0.1`);
      if (value < min || value > max) problems.push(`${where}: default ${value} is outside ${min}…${max}`);
      if (!Number.isInteger((value - min) / step)) problems.push(`${where}: default ${value} is not on a step`);
      break;
    }
    case 'select': {
      const values = (setting.options ?? []).map((option) => option.value);
      if (values.length === 0) problems.push(`${where}: a select needs options`);
      if (new Set(values).size !== values.length) problems.push(`${where}: option values must be unique`);
      if ((setting.options ?? []).some((option) => !option.label)) problems.push(`${where}: every option needs a label`);
      if (value !== undefined && !values.includes(value as string)) problems.push(`${where}: default ${String(value)} is not an option`);
      break;
    }
    case 'checkbox':
      if (typeof value !== 'boolean') problems.push(`${where}: a checkbox needs a true or false default`);
      break;
    case 'color':
      if (value !== undefined && !/^#[0-9a-f]{6}$/i.test(String(value))) problems.push(`${where}: default must be a #rrggbb colour`);
      break;
    default:
      if (value !== undefined && typeof value !== 'string') problems.push(`${where}: default must be text`);
  }
  return problems;
}

/** Every `t:` key a schema uses, anywhere in it. */
function translationKeys(schema: BlockSchema): string[] {
  return [...JSON.stringify(schema).matchAll(/"t:([\w.]+)"/g)].map((match) => match[1]!);
}

describe.each(BLOCK_FILES)('the schema of blocks/%s', (file) => {
  it('is valid for the theme editor: types and their properties, ids unique, defaults within their limits', async () => {
    const schema = schemaOf(await readBlock(file));
    const definitions = await settingDefinitions();
    expect(schema.target).toBe(file === 'live-visitors.liquid' ? 'section' : 'head');
    const problems = schema.settings.flatMap((setting) => {
      const properties = Object.keys(definitions[setting.type]?.properties ?? {});
      const allowed = SIDEBAR_TYPES.includes(setting.type) ? ['type', ...properties] : [...STANDARD_INPUT_FIELDS, ...properties];
      return settingProblems(setting, allowed);
    });
    const ids = schema.settings.flatMap((setting) => (setting.id ? [setting.id] : []));
    if (new Set(ids).size !== ids.length) problems.push(`ids repeat: ${ids.join(', ')}`);
    expect(problems).toEqual([]);
    expect(ids).toEqual(
      expect.arrayContaining([
        'website_id',
        'min',
        'text',
        'text_one',
        'compact',
        'explanation',
        'holdout',
        'alignment',
        'text_color',
        'accent_color',
      ]),
    );
  });

  it('has every label in every schema locale, and a name of at most 25 characters in each', async () => {
    const schema = schemaOf(await readBlock(file));
    const keys = translationKeys(schema);
    expect(keys.length).toBeGreaterThan(15);
    const schemaLocales = (await localeFiles()).filter((name) => name.endsWith('.schema.json'));
    expect(schemaLocales).toEqual(['de.schema.json', 'en.default.schema.json']);
    for (const name of schemaLocales) {
      const locale = await readLocale(name);
      expect(
        keys.filter((key) => typeof translation(locale, key) !== 'string'),
        name,
      ).toEqual([]);
      expect(String(translation(locale, schema.name.slice(2))).length, name).toBeLessThanOrEqual(MAX_NAME_LENGTH);
    }
  });
});

it("the embed offers the block's settings word for word, after its own placement settings", async () => {
  // Shopify wants each schema inline, so the two are copies; this keeps them from drifting apart.
  const block = schemaOf(await readBlock('live-visitors.liquid')).settings;
  const embed = schemaOf(await readBlock('live-visitors-embed.liquid')).settings;
  expect(embed.map((setting) => setting.id ?? setting.type).slice(0, -block.length)).toEqual(['paragraph', 'selector', 'position']);
  expect(embed.slice(-block.length)).toEqual(block);
});

it("the admin page's deep links name this extension's blocks: an app block for the product section, an app embed", async () => {
  // Shopify's deep links: addAppBlockId and activateAppId are {client id}/{block file without .liquid}.
  const links = themeEditorLinks('demo-shop.myshopify.com', 'client-id');
  const handleIn = (link: string, parameter: string) => new URL(link).searchParams.get(parameter)?.replace(/^client-id\//, '');
  const block = handleIn(links.addBlock, 'addAppBlockId');
  const embed = handleIn(links.turnOnEmbed, 'activateAppId');
  expect([block, embed]).toEqual([APP_BLOCK_HANDLE, APP_EMBED_HANDLE]);
  expect(BLOCK_FILES).toContain(`${block}.liquid`);
  expect(BLOCK_FILES).toContain(`${embed}.liquid`);
  expect(schemaOf(await readBlock(`${block}.liquid` as BlockFile)).target).toBe('section');
  expect(['head', 'body']).toContain(schemaOf(await readBlock(`${embed}.liquid` as BlockFile)).target);
});

it("the live dot's colour starts at the element's own default, so a block saved untouched looks like the element", async () => {
  const styles = await readFile(new URL('../../../src/live-visitors.styles.ts', import.meta.url), 'utf8');
  const elementDefault = /var\(--live-visitors-accent, (#[0-9a-f]{6})\)/i.exec(styles)?.[1];
  expect(elementDefault).toBeDefined();
  const accent = schemaOf(await readBlock('live-visitors.liquid')).settings.find((setting) => setting.id === 'accent_color');
  expect(accent?.default).toBe(elementDefault);
});

it('the validity rules above find what a theme editor would refuse', () => {
  const allowed = [...STANDARD_INPUT_FIELDS, 'min', 'max', 'step', 'unit', 'options', 'placeholder'];
  expect(settingProblems({ type: 'range', id: 'a', label: 'A', min: 0, max: 500, step: 1, default: 0 }, allowed)).toEqual([
    'a: more than 101 steps',
  ]);
  expect(settingProblems({ type: 'range', id: 'a', label: 'A', min: 0, max: 90, step: 5, default: 92 }, allowed)).toEqual([
    'a: default 92 is outside 0…90',
    'a: default 92 is not on a step',
  ]);
  expect(settingProblems({ type: 'select', id: 'b', label: 'B', default: 'x', options: [{ value: 'y', label: 'Y' }] }, allowed)).toEqual([
    'b: default x is not an option',
  ]);
  expect(settingProblems({ type: 'checkbox', id: 'C', label: 'C', default: 'yes' }, allowed)).toEqual([
    'C: id must be lower-case letters, digits and _',
    'C: a checkbox needs a true or false default',
  ]);
  expect(settingProblems({ type: 'colour', id: 'd', label: 'D' }, allowed)).toEqual(['d: unknown type colour']);
  expect(settingProblems({ type: 'text', id: 'e', label: 'E', maxlength: 3 } as SchemaSetting, allowed)).toEqual([
    'e: maxlength is not a property of text',
  ]);
});
