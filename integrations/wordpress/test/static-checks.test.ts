// @vitest-environment node
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { phpcs } from './support/phpcs.js';

const ROOT = new URL('..', import.meta.url).pathname;
const PLUGIN = join(ROOT, 'live-visitors');

function phpFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.php') && !name.startsWith('build/'))
    .map((name) => join(dir, name));
}

describe('the plugin’s PHP', () => {
  it('parses: php -l on every PHP file of the plugin, its tests and its sniff', () => {
    const files = phpFiles(ROOT);
    expect(files.length).toBeGreaterThan(15);
    for (const file of files) expect(execFileSync('php', ['-l', file], { encoding: 'utf8' })).toContain('No syntax errors');
  });

  it('declares strict types in every PHP file of the plugin (issue 30 §5)', () => {
    const files = phpFiles(PLUGIN);
    expect(files.length).toBeGreaterThan(12);
    expect(
      files.filter(
        (file) => !/^<\?php\n(?:(?:\/\/.*|\/\*\*[\s\S]*?\*\/)\n+)*declare\(strict_types=1\);$/m.test(readFileSync(file, 'utf8')),
      ),
    ).toEqual([]);
  });

  it('passes PHP_CodeSniffer with the plugin’s ruleset (Debian’s standards and the escaping sniff)', () => {
    const { report, status } = phpcs([PLUGIN]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, fixable: 0 });
    expect(status).toBe(0);
  });

  it('says what is missing and how to install it when PHP_CodeSniffer is not there (a PATH without phpcs)', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-phpcs-'));
    expect(() => phpcs([PLUGIN], { ...process.env, PATH: empty })).toThrow(
      'PHP_CodeSniffer (phpcs) is not installed: apt-get install php-codesniffer',
    );
  });

  it('has an escaping sniff that catches unescaped output: echo, printf arguments and <?=, not escaped ones', () => {
    const { report } = phpcs([join(ROOT, 'test', 'fixtures', 'unescaped-output.php')]);
    const lines = Object.values(report.files)
      .flatMap((file) => file.messages)
      .filter((message) => message.source.startsWith('LiveVisitors.Output.EscapedEcho'))
      .map((message) => message.line);
    expect(lines).toEqual([10, 11, 13]);
  });
});

describe('the plugin’s metadata', () => {
  const header = readFileSync(join(PLUGIN, 'live-visitors.php'), 'utf8');
  const readme = readFileSync(join(PLUGIN, 'readme.txt'), 'utf8');
  const field = (text: string, name: string) => new RegExp(`^\\s*\\*?\\s*${name}:\\s*(.+)$`, 'm').exec(text)?.[1]?.trim();

  it('readme.txt is in WordPress.org’s format and agrees with the plugin header', () => {
    expect(readme).toMatch(/^=== Live visitors ===\n/);
    for (const name of ['Requires at least', 'Tested up to', 'Requires PHP', 'Stable tag', 'License'])
      expect(field(readme, name)).toBeTruthy();
    expect(field(readme, 'Stable tag')).toBe(field(header, 'Version'));
    expect(field(readme, 'Requires at least')).toBe(field(header, 'Requires at least'));
    expect(field(readme, 'Requires PHP')).toBe(field(header, 'Requires PHP'));
    for (const section of ['Description', 'Installation', 'Frequently Asked Questions', 'Changelog'])
      expect(readme).toContain(`== ${section} ==`);
    expect(readme).toMatch(/= Where does my API token go\? =/);
    expect(readme).toMatch(/= How many requests does it spend of my plan\? =/);
  });

  it('block.json is what WordPress 6.1 reads: apiVersion 2, a render file, an editor script with its asset file', () => {
    const block = JSON.parse(readFileSync(join(PLUGIN, 'block', 'block.json'), 'utf8'));
    expect(block.apiVersion).toBe(2);
    expect(block.render).toBe('file:./render.php');
    expect(block.editorScript).toBe('file:./edit.js');
    expect(existsSync(join(PLUGIN, 'block', 'render.php'))).toBe(true);
    expect(existsSync(join(PLUGIN, 'block', 'edit.asset.php'))).toBe(true);
    expect(Object.keys(block.attributes)).toEqual(['min', 'sentence', 'compactNumbers', 'explanation', 'holdout']);
    expect(block.version).toBe(field(header, 'Version'));
  });
});

/** A tiny stand-in for WordPress's editor globals, recording what the script builds. */
function loadEditorScript() {
  const registered: Record<string, { edit: (props: unknown) => unknown; save: () => unknown }> = {};
  type Node = { type: unknown; props: Record<string, unknown> | null; children: Node[] };
  const createElement = (type: unknown, props: Record<string, unknown> | null, ...children: Node[]): Node => ({ type, props, children });
  const component = (name: string) => Object.assign(() => null, { displayName: name });
  const wp = {
    blocks: { registerBlockType: (name: string, settings: (typeof registered)[string]) => (registered[name] = settings) },
    element: { createElement, Fragment: component('Fragment') },
    blockEditor: { InspectorControls: component('InspectorControls'), useBlockProps: () => ({ className: 'wp-block' }) },
    components: Object.fromEntries(['PanelBody', 'RangeControl', 'TextControl', 'ToggleControl'].map((name) => [name, component(name)])),
    i18n: { __: (text: string) => text },
  };
  runInNewContext(readFileSync(join(PLUGIN, 'block', 'edit.js'), 'utf8'), { window: { wp } });
  const flatten = (node: Node): Node[] => [node, ...node.children.filter((child) => typeof child === 'object').flatMap(flatten)];
  return { registered, flatten };
}

describe('the block’s editor script (plain createElement, no build step)', () => {
  it('registers the block, saves nothing (rendered on the server), and each sidebar control sets its attribute', () => {
    const { registered, flatten } = loadEditorScript();
    const block = registered['live-visitors/live-visitors']!;
    expect(block.save()).toBeNull();
    const changes: Record<string, unknown>[] = [];
    const attributes = { min: 1, sentence: '', compactNumbers: false, explanation: true, holdout: 0 };
    const tree = flatten(block.edit({ attributes, setAttributes: (change: Record<string, unknown>) => changes.push(change) }) as never);
    const controls = tree.filter(
      (node) => typeof node.type === 'function' && /Control$/.test((node.type as unknown as { displayName: string }).displayName),
    );
    expect(controls).toHaveLength(5);
    const values: unknown[] = [5, '{count} here', true, false, 0.2];
    for (const [index, control] of controls.entries()) (control.props!.onChange as (value: unknown) => void)(values[index]);
    expect(changes).toEqual([{ min: 5 }, { sentence: '{count} here' }, { compactNumbers: true }, { explanation: false }, { holdout: 0.2 }]);
    const preview = tree.find((node) => node.type === 'p')!;
    expect(preview.children.join('')).toBe('● 23 people are browsing this shop right now');
  });

  it('previews every {count} of the sentence, as the element on the page replaces them all', () => {
    const { registered, flatten } = loadEditorScript();
    const attributes = { min: 1, sentence: '{count} here, {count} now', compactNumbers: true, explanation: true, holdout: 0 };
    const tree = flatten(registered['live-visitors/live-visitors']!.edit({ attributes, setAttributes: () => undefined }) as never);
    expect(tree.find((node) => node.type === 'p')!.children.join('')).toBe('● 1.2K here, 1.2K now');
  });
});
