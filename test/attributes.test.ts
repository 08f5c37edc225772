import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ATTRIBUTES } from '../src/attributes.js';
import { LiveVisitors } from '../src/live-visitors.js';
import '../src/define.js';

// The attributes' table (src/attributes.ts) is the element's only list of them: what it observes, what a new
// element reads before any attribute is set, and what an attribute sets, all follow from the table's rows.

const rows = Object.entries(ATTRIBUTES).map(([name, options]) => ({
  name,
  attribute: 'attribute' in options ? options.attribute : name.toLowerCase(),
  value: options.value,
}));

describe("the element's attributes, from their table", () => {
  it('are each observed, with the native lang, and nothing else', () => {
    expect([...LiveVisitors.observedAttributes].sort()).toEqual([...rows.map(({ attribute }) => attribute), 'lang'].sort());
  });

  it.each(rows)('$name reads its default ($value) on a new element, and nothing is reflected but state', ({ name, value }) => {
    const element = document.createElement('live-visitors') as LiveVisitors;
    expect(element[name as keyof typeof ATTRIBUTES]).toBe(value);
    expect(element.getAttributeNames()).toEqual([]);
  });

  it.each([
    ['website-id', 'shop', 'websiteId', 'shop'],
    ['max-age', '900', 'maxAge', 900],
    ['interval', '', 'interval', null],
    ['text-few', '{count} lidé', 'textFew', '{count} lidé'],
    ['holdout', '0.2', 'holdout', 0.2],
  ])('the attribute %s="%s" sets %s to %o', (attribute, text, name, value) => {
    const element = document.createElement('live-visitors') as LiveVisitors;
    element.setAttribute(attribute, text);
    expect(element[name as keyof typeof ATTRIBUTES]).toBe(value);
  });
});

/** The README's reference table of attributes: each row's attribute names and its Default cell. */
function readmeRows(): Array<{ attributes: string[]; defaultCell: string }> {
  const readme = readFileSync(fileURLToPath(import.meta.url).replace(/test\/attributes\.test\.ts$/, 'README.md'), 'utf8');
  const section = readme.split('### Attributes and properties')[1] ?? '';
  const table = /\n(\|[^\n]*\n)+/.exec(section)?.[0] ?? '';
  return [...table.matchAll(/^\| ([^|]+) \| [^|]+ \| ([^|]+) \|/gm)].slice(2).map(([, names, defaultCell]) => ({
    attributes: [...names!.matchAll(/`([a-z-]+)`/g)].map((name) => name[1]!),
    defaultCell: defaultCell!.trim(),
  }));
}

describe("the README's reference table", () => {
  it('lists every attribute of the table, and lang, and no other', () => {
    const listed = readmeRows().flatMap(({ attributes }) => attributes);
    expect(listed.sort()).toEqual([...rows.map(({ attribute }) => attribute), 'lang'].sort());
  });

  it('gives the defaults the element has, for the attributes whose default is a number', () => {
    const numeric = rows.filter(({ value }) => typeof value === 'number');
    expect(numeric.map(({ name }) => name)).toEqual(['interval', 'min', 'maxAge', 'holdout']);
    for (const { attribute, value } of numeric) {
      expect(readmeRows().find(({ attributes }) => attributes.includes(attribute))?.defaultCell, attribute).toBe(`\`${value}\``);
    }
  });
});
