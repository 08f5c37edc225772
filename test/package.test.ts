// @vitest-environment node
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellEnvironment } from './support/shell-environment.js';

/**
 * The two published packages as `npm pack` makes them from a fresh checkout: the repository's
 * files (tracked and new, none that git ignores, so no dist/) copied to a folder of their own with
 * this node_modules, where `npm pack --dry-run --json` runs each package's `prepack` (its build)
 * and lists what it would ship. A copy, so the build never rewrites the dist/ other suites read.
 */

/** Measured on 2026-11-29 (files, packed and unpacked bytes), and the budget: about 10 % above. */
const BUDGETS = {
  // 341 files, 207,903 B packed, 748,707 B unpacked.
  'live-visitors': { files: 375, packedBytes: 230_000, unpackedBytes: 825_000 },
  // 34 files, 148,983 B packed, 489,809 B unpacked: the element's script-tag files ride along as
  // data (about 47 KB packed), so a relay serves them from its own origin with no CDN.
  'live-visitors-relay': { files: 38, packedBytes: 165_000, unpackedBytes: 540_000 },
} as const;

type PackageName = keyof typeof BUDGETS;
interface PackResult {
  name: string;
  entryCount: number;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}
interface Packed {
  manifest: Record<string, unknown>;
  folder: string;
  result: PackResult;
  paths: Set<string>;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
let checkout: string;
const packed = {} as Record<PackageName, Packed>;

/** npm prints the build's output first, on the same stream: the JSON is the array after it. */
function packResult(stdout: string): PackResult {
  const [result] = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[\n') + 1)) as PackResult[];
  if (!result) throw new Error(`npm pack listed no package:\n${stdout}`);
  return result;
}

async function pack(name: PackageName, folder: string, args: string[]): Promise<void> {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', ...args], {
    cwd: checkout,
    env: shellEnvironment(),
    maxBuffer: 64 * 1024 * 1024,
  });
  const result = packResult(stdout);
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Record<string, unknown>;
  packed[name] = { manifest, folder, result, paths: new Set(result.files.map((file) => file.path)) };
}

beforeAll(async () => {
  checkout = mkdtempSync(join(tmpdir(), 'live-visitors-pack-'));
  const { stdout } = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const file of stdout.split('\0')) {
    if (file && existsSync(join(root, file))) cpSync(join(root, file), join(checkout, file), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  // One after the other: the relay's build may take files the element's build writes.
  await pack('live-visitors', checkout, []);
  await pack('live-visitors-relay', join(checkout, 'relay'), ['--workspace', 'live-visitors-relay']);
}, 600_000);

afterAll(() => {
  if (checkout) rmSync(checkout, { recursive: true, force: true });
});

/** Every file package.json names for users: main, module, types, customElements, each bin and each export condition. */
function namedFiles(manifest: Record<string, unknown>): string[] {
  const named: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') named.push(posix.normalize(value));
    else if (value && typeof value === 'object') for (const inner of Object.values(value)) collect(inner);
  };
  for (const field of ['main', 'module', 'types', 'customElements', 'bin', 'exports']) collect(manifest[field]);
  return [...new Set(named)].filter((file) => file !== 'package.json');
}

/** The package's own files a module imports (`import './x.js'`, `import('../y.js')`), as paths in the package. */
function relativeImports(folder: string, file: string): string[] {
  const text = readFileSync(join(folder, file), 'utf8');
  return [...text.matchAll(/\bimport\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => posix.join(posix.dirname(file), match[1]!));
}

describe.each(Object.keys(BUDGETS) as PackageName[])('npm pack of %s, from a fresh checkout', (name) => {
  it('builds first (prepack) and ships every entry point, type file and bin that package.json names', () => {
    const { manifest, paths } = packed[name];
    const named = namedFiles(manifest);
    expect(named.some((file) => file.endsWith('.d.ts'))).toBe(true);
    expect(named.filter((file) => !paths.has(file))).toEqual([]);
  });

  it('ships what each bin imports', () => {
    const { manifest, folder, paths } = packed[name];
    const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values((manifest.bin ?? {}) as Record<string, string>);
    for (const bin of bins.map((file) => posix.normalize(file))) {
      const imports = relativeImports(folder, bin);
      expect(imports.length, bin).toBeGreaterThan(0);
      expect(imports.filter((file) => !paths.has(file))).toEqual([]);
    }
  });

  it('ships no sources or tests, and a source map only with the sources it maps', () => {
    const { folder, paths } = packed[name];
    expect([...paths].filter((file) => /^src\/|\.test\.|(^|\/)test\//.test(file))).toEqual([]);
    const mapsWithoutSources = [...paths]
      .filter((file) => file.endsWith('.map'))
      .filter((file) => {
        const map = JSON.parse(readFileSync(join(folder, file), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
        return map.sources.some(
          (source, index) => typeof map.sourcesContent?.[index] !== 'string' && !paths.has(posix.join(posix.dirname(file), source)),
        );
      });
    expect(mapsWithoutSources).toEqual([]);
  });

  it('stays within its budget of files and bytes', () => {
    const { result } = packed[name];
    const budget = BUDGETS[name];
    const measured = { files: result.entryCount, packedBytes: result.size, unpackedBytes: result.unpackedSize };
    expect(result.name).toBe(name);
    for (const key of Object.keys(budget) as (keyof typeof budget)[]) {
      expect(measured[key], `${key}: ${JSON.stringify(measured)}`).toBeLessThanOrEqual(budget[key]);
    }
  });
});
