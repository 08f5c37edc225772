import { readFileSync } from 'node:fs';
import { type DeclaredPermissions, readPermissions } from './permissions.js';

/** The template as Tag Manager exports it: `___NAME___` headings, each followed by its section. */
export const TEMPLATE_PATH = new URL('../../template.tpl', import.meta.url);

export interface TemplateParameter {
  readonly type: string;
  readonly name: string;
  readonly displayName?: string;
  readonly defaultValue?: unknown;
  readonly help?: string;
  readonly simpleValueType?: boolean;
  readonly valueValidators?: readonly { readonly type: string; readonly args?: readonly string[] }[];
  readonly selectItems?: readonly { readonly value: string; readonly displayValue: string }[];
  readonly subParams?: readonly TemplateParameter[];
}

export interface Scenario {
  readonly name: string;
  readonly code: string;
}

export interface GtmTemplate {
  readonly sections: ReadonlyMap<string, string>;
  readonly info: Record<string, unknown>;
  readonly parameters: readonly TemplateParameter[];
  readonly code: string;
  readonly permissionsJson: unknown;
  readonly permissions: DeclaredPermissions;
  readonly scenarios: readonly Scenario[];
  /** Runs before every scenario, in the same scope. */
  readonly setup: string;
}

export function readTemplate(text = readFileSync(TEMPLATE_PATH, 'utf8')): GtmTemplate {
  const sections = splitSections(text);
  const section = (name: string) => {
    const body = sections.get(name);
    if (body === undefined) throw new Error(`template.tpl has no ___${name}___ section`);
    return body;
  };
  const permissionsJson: unknown = JSON.parse(section('WEB_PERMISSIONS'));
  const tests = readTests(section('TESTS'));
  return {
    sections,
    info: JSON.parse(section('INFO')) as Record<string, unknown>,
    parameters: JSON.parse(section('TEMPLATE_PARAMETERS')) as TemplateParameter[],
    code: section('SANDBOXED_JS_FOR_WEB_TEMPLATE'),
    permissionsJson,
    permissions: readPermissions(permissionsJson),
    ...tests,
  };
}

/** Every field, groups flattened. */
export function fieldsOf(parameters: readonly TemplateParameter[]): TemplateParameter[] {
  return parameters.flatMap((parameter) => (parameter.type === 'GROUP' ? fieldsOf(parameter.subParams ?? []) : [parameter]));
}

/** The `data` a tag built from this template gets when a marketer fills `values` and keeps the other defaults. */
export function tagFields(template: GtmTemplate, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const field of fieldsOf(template.parameters)) if (field.defaultValue !== undefined) fields[field.name] = field.defaultValue;
  const known = new Set(fieldsOf(template.parameters).map((field) => field.name));
  for (const name of Object.keys(values)) if (!known.has(name)) throw new Error(`The template has no field ${name}`);
  return { ...fields, ...values };
}

function splitSections(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  const headings = [...text.matchAll(/^___([A-Z_]+)___$/gm)];
  headings.forEach((heading, index) => {
    const start = (heading.index ?? 0) + heading[0].length;
    const end = headings[index + 1]?.index ?? text.length;
    sections.set(heading[1] as string, text.slice(start, end).trim());
  });
  return sections;
}

/**
 * The `___TESTS___` section is YAML; Tag Manager writes one shape of it (a list of scenarios with
 * a name and a `|-` code block, then an optional `setup: |-` block), which is all this reads.
 * Anything else is an error rather than a guess.
 */
function readTests(yaml: string): { scenarios: Scenario[]; setup: string } {
  const lines = yaml.split('\n');
  const scenarios: Scenario[] = [];
  let setup = '';
  let index = 0;
  const block = (indent: number): string => {
    const body: string[] = [];
    while (index < lines.length) {
      const line = lines[index] as string;
      if (line.trim() !== '' && !line.startsWith(' '.repeat(indent))) break;
      body.push(line.slice(indent));
      index += 1;
    }
    return body.join('\n').trimEnd();
  };
  if (lines[index] !== 'scenarios:') throw new Error('___TESTS___ must start with "scenarios:"');
  index += 1;
  while (index < lines.length) {
    const line = lines[index] as string;
    const name = /^- name: (.+)$/.exec(line);
    if (name) {
      if (lines[index + 1] !== '  code: |-') throw new Error(`scenario "${name[1]}" must go on with "  code: |-"`);
      index += 2;
      scenarios.push({ name: name[1] as string, code: block(4) });
    } else if (line === 'setup: |-') {
      index += 1;
      setup = block(2);
    } else if (line.trim() === '' || line === "setup: ''") {
      index += 1;
    } else {
      throw new Error(`___TESTS___: cannot read line ${index + 1}: ${line}`);
    }
  }
  return { scenarios, setup };
}
