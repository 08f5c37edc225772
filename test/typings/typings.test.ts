import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The framework typings, checked the way each framework's users check their apps. Every app here
 * sets `website-id`, the number `min` and `interval`, and reads the count from the update event;
 * it must pass its framework's checker. Its misspelt sibling writes `intervall`, reads
 * `detail.counts`, and sets `state`, which is the element's own: the checker must fail and name
 * all three.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const appsDir = fileURLToPath(new URL('.', import.meta.url));
/** Where the apps find `live-visitors`: a copy of the package as npm would install it, built from src/ by beforeAll. */
const installed = join(appsDir, 'node_modules', 'live-visitors');

interface CommandResult {
  exitCode: number;
  output: string;
}

/** Runs one of the repository's command-line tools, resolving with its exit code and everything it printed. */
function run(command: string, args: string[], cwd: string): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(join(root, 'node_modules', '.bin', command), args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const exitCode = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ exitCode, output: stripVTControlCharacters(`${stdout}${stderr}`) });
    });
  });
}

/**
 * Each app lives in test/typings/<framework>/: tsconfig.json checks the app, tsconfig.misspelt.json
 * its misspelt sibling. Slowest checker first, so the two that run at once finish close together.
 */
const apps = [
  {
    framework: 'angular',
    command: 'ngc',
    args: ['-p'],
    // CUSTOM_ELEMENTS_SCHEMA lets any property through, and Angular leaves DOM property bindings
    // unchecked even with strictTemplates (its checkTypeOfDomBindings is always false). It does
    // check DOM events against the element's event map, so the misspelt detail still fails.
    uncheckedByDesign: ['intervall', 'state'],
  },
  { framework: 'svelte', command: 'svelte-check', args: ['--fail-on-warnings', '--output', 'human', '--tsconfig'] },
  { framework: 'vue', command: 'vue-tsc', args: ['-p'] },
  { framework: 'react', command: 'tsc', args: ['-p'] },
  { framework: 'solid', command: 'tsc', args: ['-p'] },
  { framework: 'preact', command: 'tsc', args: ['-p'] },
];

/**
 * Installs the package as its users get it: its package.json (so `exports` is what resolves
 * `live-visitors/react`), dist/lib's declarations from tsc, and the manifest and typings from
 * `cem analyze` with the repository's config. Only files are overwritten, so two runs at once
 * write the same content rather than delete each other's.
 */
async function installPackage(): Promise<void> {
  await mkdir(installed, { recursive: true });
  await copyFile(join(root, 'package.json'), join(installed, 'package.json'));
  // cem analyze reads the config and src/ from where it runs, and writes dist/ there.
  for (const name of ['src', 'custom-elements-manifest.config.mjs']) {
    await symlink(join(root, name), join(installed, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
  const declarations = ['-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--declarationMap', 'false'];
  const builds = await Promise.all([
    run('tsc', [...declarations, '--declarationDir', join(installed, 'dist', 'lib')], root),
    run('cem', ['analyze', '--quiet'], installed),
  ]);
  for (const build of builds) expect(build.exitCode, build.output).toBe(0);
}

beforeAll(installPackage);

describe.concurrent('framework typings', () => {
  for (const { framework, command, args, uncheckedByDesign = [] } of apps) {
    const cwd = join(appsDir, framework);

    it(`${framework}: the app type-checks`, async () => {
      const result = await run(command, [...args, 'tsconfig.json'], cwd);
      expect(result.exitCode, result.output).toBe(0);
    });

    it(`${framework}: the misspelt app fails, naming each misspelling`, async () => {
      const result = await run(command, [...args, 'tsconfig.misspelt.json'], cwd);
      expect(result.exitCode, result.output).not.toBe(0);
      // ngc quotes the template line, so only its error messages tell what it reported.
      const errors = result.output.split('\n').filter((line) => /error/i.test(line));
      for (const misspelling of ['intervall', 'counts', 'state']) {
        if (uncheckedByDesign.includes(misspelling)) expect(errors.join('\n')).not.toContain(misspelling);
        else expect(result.output).toContain(misspelling);
      }
    });
  }

  // The apps skip library checks, as most projects do; an error inside a generated file would
  // then turn its types into `any` unseen. So the files the package exports for types, and the
  // files they import, are checked on their own.
  it('the exported typings have no type errors', async () => {
    const { exports } = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    const entryPoints = Object.values<{ types?: string }>(exports).flatMap((target) =>
      target.types ? [join(installed, target.types)] : [],
    );
    const program = ts.createProgram(entryPoints, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      noEmit: true,
    });
    const ours = program.getSourceFiles().filter((source) => source.fileName.startsWith(join(installed, 'dist')));
    const diagnostics = ours.flatMap((source) => [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]);
    const host = { getCanonicalFileName: (name: string) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' };
    expect(ours.length).toBeGreaterThan(entryPoints.length);
    expect(ts.formatDiagnostics(diagnostics, host)).toBe('');
  });

  it('the VS Code custom data lists the attributes the manifest declares', async () => {
    const read = async (name: string) => JSON.parse(await readFile(join(installed, 'dist', name), 'utf8'));
    const manifest = await read('custom-elements.json');
    const customData = await read('vscode.html-custom-data.json');
    const element = manifest.modules
      .flatMap((module: { declarations?: unknown[] }) => module.declarations ?? [])
      .find((declaration: { tagName?: string }) => declaration.tagName === 'live-visitors');
    const tag = customData.tags.find((entry: { name: string }) => entry.name === 'live-visitors');
    const names = (attributes: { name: string }[]) => attributes.map(({ name }) => name).sort();
    expect(names(tag.attributes)).toEqual(names(element.attributes));
  });
});
