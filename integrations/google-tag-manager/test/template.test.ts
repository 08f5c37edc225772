import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeHost } from './support/node-host.js';
import { isAllowed } from './support/permissions.js';
import { loaderUrlFor, PACKAGE_VERSION, PUBLISHED_LOADER_URL } from './support/published-script.js';
import { runTemplate } from './support/sandbox.js';
import { fieldsOf, readTemplate, tagFields } from './support/template-file.js';

const template = readTemplate();
const fields = new Map(fieldsOf(template.parameters).map((field) => [field.name, field]));
// Derived from package.json: a major release fails these tests until the template follows it.
const DEFAULT_SCRIPT_URL = PUBLISHED_LOADER_URL;
const OTHER_MAJOR_URL = loaderUrlFor(`${Number(PACKAGE_VERSION.split('.')[0]) + 1}.0.0`);

/** The element's attributes as the README's reference table lists them, less `state`, which the element sets. */
function attributesInReadme(): string[] {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const section = readme.split('### Attributes and properties')[1] ?? '';
  // The first table under the heading: from its first row to the first line that is not a row.
  const table = /\n(\|[^\n]*\n)+/.exec(section)?.[0] ?? '';
  const names = [...table.matchAll(/^\| ([^|]+) \|/gm)].flatMap((row) =>
    [...(row[1] as string).matchAll(/`([a-z-]+)`/g)].map((name) => name[1] as string),
  );
  return names.filter((name) => name !== 'state');
}

describe('template.tpl in the Community Template Gallery format', () => {
  it('has the sections of an exported tag template, in order', () => {
    expect([...template.sections.keys()]).toEqual([
      'TERMS_OF_SERVICE',
      'INFO',
      'TEMPLATE_PARAMETERS',
      'SANDBOXED_JS_FOR_WEB_TEMPLATE',
      'WEB_PERMISSIONS',
      'TESTS',
      'NOTES',
    ]);
    expect(template.info).toMatchObject({ type: 'TAG', id: 'cvt_temp_public_id', version: 1, containerContexts: ['WEB'] });
  });

  it('asks for the script, website, connection, placement and the main attributes', () => {
    expect([...fields.keys()].sort()).toEqual(
      [
        'apiBase',
        'disclosure',
        'disclosureText',
        'holdout',
        'interval',
        'lang',
        'maxAge',
        'min',
        'notation',
        'position',
        'scriptUrl',
        'selector',
        'text',
        'textFew',
        'textMany',
        'textOne',
        'textTwo',
        'token',
        'websiteId',
      ].sort(),
    );
    expect(fields.get('scriptUrl')?.defaultValue).toBe(DEFAULT_SCRIPT_URL);
    expect(
      fields
        .get('position')
        ?.selectItems?.map((item) => item.value)
        .sort(),
    ).toEqual(['after', 'before', 'first', 'last']);
    expect(fields.get('position')?.defaultValue).toBe('after');
    expect(fields.get('notation')?.selectItems?.map((item) => item.value)).toEqual(['standard', 'compact']);
    expect(fields.get('disclosure')?.selectItems?.map((item) => item.value)).toEqual(['on', 'off']);
    for (const required of ['websiteId', 'selector', 'scriptUrl']) {
      expect(fields.get(required)?.valueValidators?.map((validator) => validator.type)).toContain('NON_EMPTY');
    }
    expect(fields.get('token')?.help).toMatch(/anyone can read it/);
    expect(fields.get('token')?.help).toMatch(/relay/);
  });

  it('can set every attribute a marketer can set on the element (the README reference table)', () => {
    const expected = attributesInReadme();
    expect(expected).toContain('text-one');
    const host = nodeHost();
    const filled = Object.fromEntries(
      fieldsOf(template.parameters)
        .filter((field) => field.type === 'TEXT' && !['scriptUrl', 'selector'].includes(field.name))
        .map((field) => [field.name, field.name === 'lang' ? 'de' : `1${field.name.length}`]),
    );
    const run = runTemplate({
      code: template.code,
      fields: tagFields(template, { ...filled, selector: '.product-form' }),
      permissions: template.permissions,
      host,
    });
    expect(run.thrown).toBeUndefined();
    const [placement] = host.window.liveVisitors as { attributes: Record<string, string> }[];
    expect(Object.keys(placement?.attributes ?? {}).sort()).toEqual([...expected].sort());
  });

  it("the relay field sends the marketer to a relay's registration page", () => {
    expect(fields.get('apiBase')?.help).toMatch(/register your website there and paste its address here/);
  });

  it('the default script URL follows the published major version of the package', () => {
    expect(loaderUrlFor('0.1.0')).toMatch(/live-visitors@0\//);
    expect(loaderUrlFor('2.3.1')).toMatch(/live-visitors@2\//);
    expect(() => loaderUrlFor('next')).toThrow(/not a semantic version/);
    expect(fields.get('scriptUrl')?.defaultValue).toBe(DEFAULT_SCRIPT_URL);
    expect(fields.get('scriptUrl')?.defaultValue).not.toBe(OTHER_MAJOR_URL);
  });

  it.each([
    ['min', ['', '1', '25'], ['0', '-1', '1.5', 'five']],
    ['holdout', ['', '0', '0.2', '0.9'], ['1', '.5', '-0.1', 'half']],
    ['scriptUrl', [DEFAULT_SCRIPT_URL], [DEFAULT_SCRIPT_URL.replace('https:', 'http:'), '//cdn.example/x.js']],
  ])('the %s field accepts %j and refuses %j', (name, accepted, refused) => {
    const patterns = (fields.get(name)?.valueValidators ?? []).filter((validator) => validator.type === 'REGEX');
    expect(patterns).toHaveLength(1);
    const pattern = new RegExp(patterns[0]?.args?.[0] as string);
    for (const value of accepted) expect(pattern.test(value), value).toBe(true);
    for (const value of refused) expect(pattern.test(value), value).toBe(false);
  });

  it('uses only documented sandbox APIs, each required once at the top', () => {
    const required = [...template.code.matchAll(/require\('([^']+)'\)/g)].map((match) => match[1]);
    expect(required).toEqual(['createQueue', 'injectScript', 'logToConsole', 'makeString', 'queryPermission']);
  });

  it('declares exactly the permissions its code needs: debug logging, the liveVisitors queue, the loader URL', () => {
    const { permissions } = template;
    expect(permissions.declared).toEqual(['logging', 'access_globals', 'inject_script']);
    expect(permissions.logging).toBe('debug');
    expect([...permissions.globals]).toEqual([['liveVisitors', { read: true, write: true, execute: false }]]);
    expect(permissions.scriptUrls).toEqual([DEFAULT_SCRIPT_URL]);
  });

  it.each([
    [DEFAULT_SCRIPT_URL, true],
    [DEFAULT_SCRIPT_URL.replace('live-visitors-loader.js', 'live-visitors.js'), false],
    [`${DEFAULT_SCRIPT_URL}?v=2`, false],
    [DEFAULT_SCRIPT_URL.replace('https:', 'http:'), false],
    [OTHER_MAJOR_URL, false],
    ['https://cdn.jsdelivr.net/npm/live-visitors@0/dist/../../other/x.js', false],
    ['https://cdn.jsdelivr.net.evil.example/npm/live-visitors@0/dist/live-visitors-loader.js', false],
    ['https://user@cdn.jsdelivr.net/npm/live-visitors@0/dist/live-visitors-loader.js', false],
    ['https://cdn.jsdelivr.net:8443/npm/live-visitors@0/dist/live-visitors-loader.js', false],
    ['https://unpkg.com/live-visitors@0/dist/live-visitors-loader.js', false],
  ])('inject_script allows %s: %s', (url, allowed) => {
    expect(isAllowed(template.permissions, 'inject_script', [url])).toBe(allowed);
  });

  it('queryPermission for globals follows the declared ticks', () => {
    const query = (access: string, key: string) => isAllowed(template.permissions, 'access_globals', [access, key]);
    expect([query('read', 'liveVisitors'), query('write', 'liveVisitors'), query('readwrite', 'liveVisitors')]).toEqual([true, true, true]);
    expect([query('execute', 'liveVisitors.push'), query('read', 'dataLayer'), query('write', 'document')]).toEqual([false, false, false]);
  });

  it("the scenarios' setup uses the default script URL", () => {
    expect(template.setup).toContain(DEFAULT_SCRIPT_URL);
  });

  it('metadata.yaml names the documentation and a version by commit, as the gallery reads it', () => {
    const metadata = readFileSync(new URL('../metadata.yaml', import.meta.url), 'utf8');
    expect(metadata).toMatch(/^homepage: "https:\/\/\S+"$/m);
    expect(metadata).toMatch(/^documentation: "https:\/\/\S+"$/m);
    expect(metadata).toMatch(/^versions:\n {2}- sha: [0-9a-f]{40}\n {4}changeNotes: .+/m);
  });
});
