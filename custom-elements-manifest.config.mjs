// `cem analyze` (npm run build) writes dist/custom-elements.json from the element's source, and
// with these plugins the framework typings in dist/types/ from that manifest: they follow every
// attribute, property and event the element gains, with no copy to keep in step.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateJsxTypes } from 'custom-element-jsx-integration';
import { generateSolidJsTypes } from 'custom-element-solidjs-integration';
import { generateVsCodeCustomElementData } from 'custom-element-vs-code-integration';
import { generateVuejsTypes } from 'custom-element-vuejs-integration';

const outdir = 'dist';
const typesDir = join(outdir, 'types');
/**
 * The package's own declarations, seen from typesDir. Generated files take each type from there
 * (`LiveVisitors['min']` is `number`), not from the manifest's type text, whose names
 * (`Notation`, `WidgetState`) they could not resolve.
 */
const declarations = '../lib/index.js';

export default {
  globs: ['src/**/*.ts'],
  outdir,
  litelement: true,
  plugins: [attributesFromTable(), eventTypesFromEventMap(), symbolKeyedPropertiesHidden(), frameworkTypings()],
};

/**
 * The element's attributes are one table, `ATTRIBUTES` in src/attributes.ts, which the element
 * spreads into `static properties` and whose types it takes by an interface: the analyzer's Lit
 * support reads neither. This writes each row into the manifest as the analyzer wrote a Lit
 * property with a `declare` and a constructor default: a public field and its attribute, with the
 * row's JSDoc (and `@readonly`), its type (the `as` type of its value, else `number` or `string`)
 * and its default (an identifier read as the number a module's `const` gives it).
 */
function attributesFromTable() {
  const tableName = 'ATTRIBUTES';
  /** The table's rows, as the analyzer met them. */
  let rows = null;
  /** `const NAME = 60` of every module: name -> the number's text, or null when two modules disagree. */
  const numbers = new Map();
  const fail = (message) => {
    throw new Error(`custom-elements-manifest.config.mjs: ${message}`);
  };
  return {
    name: 'live-visitors:attributes-from-table',
    analyzePhase({ ts, node }) {
      if (!ts.isVariableDeclaration(node) || !ts.isIdentifier(node.name) || !node.initializer) return;
      const { text } = node.name;
      if (ts.isNumericLiteral(node.initializer)) {
        const value = node.initializer.text;
        numbers.set(text, numbers.has(text) && numbers.get(text) !== value ? null : value);
      }
      // The table is checked against Lit's options with `satisfies`, around the object literal.
      const table = ts.isSatisfiesExpression(node.initializer) ? node.initializer.expression : node.initializer;
      if (text === tableName && ts.isObjectLiteralExpression(table)) rows = readRows(ts, table);
    },
    packageLinkPhase({ customElementsManifest }) {
      if (!rows?.length) fail(`no ${tableName} table found (src/attributes.ts).`);
      const element = customElements(customElementsManifest).find(({ name }) => name === 'LiveVisitors') ?? fail('no LiveVisitors.');
      const members = [];
      const attributes = [];
      for (const { name, attribute, reflect, description, readonly, type, value } of rows) {
        const fallback = numbers.has(value) ? (numbers.get(value) ?? fail(`${value} has two values.`)) : value;
        const shared = { type: { text: type }, ...(description && { description }), ...(readonly && { readonly }), default: fallback };
        members.push({ kind: 'field', name, privacy: 'public', ...shared, attribute, ...(reflect && { reflects: true }) });
        attributes.push({ name: attribute, ...shared, fieldName: name });
      }
      element.members = [...members, ...(element.members ?? [])];
      element.attributes = [...attributes, ...(element.attributes ?? [])];
    },
  };

  /** Each row: its name, Lit options the manifest shows, JSDoc, type and default as source text. */
  function readRows(ts, table) {
    return table.properties.map((row) => {
      if (!ts.isPropertyAssignment(row) || !ts.isObjectLiteralExpression(row.initializer))
        fail(`${tableName}: a row is not "name: { … }".`);
      const name = row.name.getText();
      const options = new Map(row.initializer.properties.map((option) => [option.name.getText(), option.initializer]));
      const value = options.get('value') ?? fail(`${tableName}.${name} has no value.`);
      const [doc] = row.jsDoc ?? [];
      const literal = ts.isAsExpression(value) ? value.expression : value;
      return {
        name,
        attribute: options.has('attribute') ? options.get('attribute').text : name.toLowerCase(),
        reflect: options.get('reflect')?.kind === ts.SyntaxKind.TrueKeyword,
        description: doc ? ts.getTextOfJSDocComment(doc.comment)?.trim() : undefined,
        readonly: doc?.tags?.some((tag) => tag.tagName.text === 'readonly') ?? false,
        type: ts.isAsExpression(value) ? value.type.getText() : ts.isStringLiteral(literal) ? 'string' : 'number',
        value: literal.getText(),
      };
    });
  }
}

/**
 * An event's type is declared once, in `GlobalEventHandlersEventMap` (define.ts), which is what
 * `addEventListener` reads. For each `@fires` whose JSDoc gives no `{type}`, this copies that type
 * into the manifest, through an alias such as `type LiveVisitorsUpdateEvent = CustomEvent<…>`.
 */
function eventTypesFromEventMap() {
  /** Event name -> type, from the event map. */
  const eventTypes = new Map();
  /** Alias name -> the type it stands for. */
  const aliases = new Map();
  return {
    name: 'live-visitors:event-types-from-event-map',
    analyzePhase({ ts, node }) {
      if (ts.isInterfaceDeclaration(node) && node.name.text === 'GlobalEventHandlersEventMap') {
        for (const member of node.members) {
          if (ts.isPropertySignature(member) && member.type && ts.isStringLiteral(member.name)) {
            eventTypes.set(member.name.text, member.type.getText());
          }
        }
      } else if (ts.isTypeAliasDeclaration(node)) {
        aliases.set(node.name.text, node.type.getText());
      }
    },
    packageLinkPhase({ customElementsManifest }) {
      for (const event of customElements(customElementsManifest).flatMap((element) => element.events ?? [])) {
        const declared = eventTypes.get(event.name);
        if (!event.type && declared) event.type = { text: aliases.get(declared) ?? declared };
      }
    },
  };
}

/**
 * A reactive property keyed by a symbol is the element's own business, not its API: the element
 * observes its native `lang` attribute through one. The manifest keeps `lang` as an attribute with
 * no field behind it, as it lists every attribute the element observes, and no member named
 * `[OWN_LANG]`, which no framework could spell.
 */
function symbolKeyedPropertiesHidden() {
  const symbolKeyed = (name) => name?.startsWith('[');
  return {
    name: 'live-visitors:symbol-keyed-properties-hidden',
    packageLinkPhase({ customElementsManifest }) {
      for (const element of customElements(customElementsManifest)) {
        element.members = element.members?.filter((member) => !symbolKeyed(member.name));
        for (const attribute of element.attributes ?? []) if (symbolKeyed(attribute.fieldName)) delete attribute.fieldName;
      }
    },
  };
}

/**
 * Runs the generators, each on the manifest as it reads it, then writes the entry points that
 * put the generated elements into React's, Preact's and Solid's JSX and Svelte's element types.
 */
function frameworkTypings() {
  const options = { outdir: typesDir, globalTypePath: declarations, hideLogs: true };
  return {
    name: 'live-visitors:framework-typings',
    packageLinkPhase({ customElementsManifest }) {
      const manifest = generatorView(customElementsManifest);
      generateJsxTypes(manifest, { ...options, fileName: 'jsx.d.ts' });
      generateSolidJsTypes(manifest, { ...options, fileName: 'solid-elements.d.ts' });
      generateVuejsTypes(vueView(manifest), { ...options, fileName: 'vue.d.ts' });
      generateVsCodeCustomElementData(customElementsManifest, { outdir, hideLogs: true });
      writeTypes('react.d.ts', jsxEntryPoint('react', './jsx.js'));
      writeTypes('preact.d.ts', jsxEntryPoint('preact', './jsx.js'));
      writeTypes('solid.d.ts', jsxEntryPoint('solid-js', './solid-elements.js'));
      writeTypes('svelte.d.ts', svelteEntryPoint(customElements(manifest), './jsx.js'));
    },
  };
}

/**
 * A copy of the manifest as the generators read it:
 * - an event's type is its detail's, since they write `CustomEvent<type>` (and `unknown` when
 *   untyped, where they would write `never`, which no handler could read);
 * - no read-only property or attribute, which a template must not set (`state` is the element's
 *   own, reflected for styling);
 * - no attribute without a property of its own (the native `lang`, which the element only
 *   observes): a generated file would look up `LiveVisitors['undefined']`, and every framework
 *   types `lang` already.
 */
function generatorView(manifest) {
  const view = structuredClone(manifest);
  for (const element of customElements(view)) {
    element.attributes = element.attributes?.filter((attribute) => attribute.fieldName && !attribute.readonly);
    element.members = element.members?.filter((member) => !member.readonly);
    for (const event of element.events ?? []) {
      const type = event.type?.text;
      event.type = { text: type?.match(/^CustomEvent<(.+)>$/)?.[1] ?? type ?? 'unknown' };
    }
  }
  return view;
}

/**
 * vue-tsc checks `<live-visitors>` as a component, whose props Vue's compiler camelizes:
 * `website-id` arrives as `websiteId` and `@live-visitors-update` as `onLiveVisitorsUpdate`.
 * The generator writes names as the manifest spells them, so here they are spelt Vue's way.
 */
function vueView(manifest) {
  const view = structuredClone(manifest);
  for (const element of customElements(view)) {
    for (const attribute of element.attributes ?? []) attribute.name = attribute.fieldName;
    for (const event of element.events ?? []) event.name = pascalCase(event.name);
  }
  return view;
}

/** For `import type {} from 'live-visitors/react'` (say) to type the elements in that framework's JSX. */
function jsxEntryPoint(framework, elementsModule) {
  return `// Generated by custom-elements-manifest.config.mjs: this package's elements in ${framework}'s JSX.
import type { CustomElements } from '${elementsModule}';

declare module '${framework}' {
  namespace JSX {
    interface IntrinsicElements extends CustomElements {}
  }
}
`;
}

/**
 * Svelte 5 spells attributes and `on<event>` handlers as the JSX generator does, so its props serve
 * here. (custom-element-svelte-integration targets Svelte 4's `on:` directives, and declares a
 * `svelteHTML` namespace that stays local to its module, where svelte-check never sees it.)
 */
function svelteEntryPoint(elements, elementsModule) {
  const entries = elements.map(({ name, tagName }) => `    '${tagName}': HTMLAttributes<${name}> & ${name}Props;`);
  return `// Generated by custom-elements-manifest.config.mjs: this package's elements in Svelte's element types.
import type { HTMLAttributes } from 'svelte/elements';
import type { ${elements.map(({ name }) => name).join(', ')} } from '${declarations}';
import type { ${elements.map(({ name }) => `${name}Props`).join(', ')} } from '${elementsModule}';

declare module 'svelte/elements' {
  interface SvelteHTMLElements {
${entries.join('\n')}
  }
}
`;
}

function writeTypes(fileName, source) {
  writeFileSync(join(typesDir, fileName), source);
}

function customElements(manifest) {
  return manifest.modules.flatMap((module) => module.declarations ?? []).filter((declaration) => declaration.customElement);
}

/** `live-visitors-update` -> `LiveVisitorsUpdate`. */
function pascalCase(name) {
  return name.replace(/(?:^|-)(\w)/g, (_, letter) => letter.toUpperCase());
}
