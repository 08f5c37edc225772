import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The theme app extension as `shopify app deploy` would upload it. */
export const EXTENSION = new URL('../../extensions/live-visitors/', import.meta.url);
export const EXTENSION_PATH = fileURLToPath(EXTENSION);
export const BLOCK_FILES = ['live-visitors.liquid', 'live-visitors-embed.liquid'] as const;
export type BlockFile = (typeof BLOCK_FILES)[number];

/** One setting of a block's `{% schema %}` as the theme editor reads it (only the fields these blocks may use). */
export interface SchemaSetting {
  readonly type: string;
  readonly id?: string;
  readonly label?: string;
  readonly content?: string;
  readonly info?: string;
  readonly placeholder?: string;
  readonly default?: unknown;
  readonly min?: number;
  readonly max?: number;
  readonly step?: number;
  readonly unit?: string;
  readonly options?: ReadonlyArray<{ readonly value: string; readonly label: string }>;
}

export interface BlockSchema {
  readonly name: string;
  readonly target: string;
  readonly settings: readonly SchemaSetting[];
  readonly [field: string]: unknown;
}

export async function readBlock(file: BlockFile): Promise<string> {
  return readFile(new URL(`blocks/${file}`, EXTENSION), 'utf8');
}

/** The JSON between `{% schema %}` and `{% endschema %}` (exactly one per block, as Shopify requires). */
export function schemaOf(source: string): BlockSchema {
  const bodies = [...source.matchAll(/\{%-?\s*schema\s*-?%\}([\s\S]*?)\{%-?\s*endschema\s*-?%\}/g)];
  if (bodies.length !== 1) throw new Error(`expected one {% schema %} tag, found ${bodies.length}`);
  return JSON.parse(bodies[0]![1]!) as BlockSchema;
}

/** A locale file of the extension, parsed: `en.default.schema.json`, `de.json`… */
export async function readLocale(name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(new URL(`locales/${name}`, EXTENSION), 'utf8')) as Record<string, unknown>;
}

export async function localeFiles(): Promise<string[]> {
  return (await readdir(new URL('locales/', EXTENSION))).filter((name) => name.endsWith('.json')).sort();
}

/** `a.b.c` in a nested translation object, or undefined. */
export function translation(locale: Record<string, unknown>, key: string): unknown {
  return key
    .split('.')
    .reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), locale);
}
