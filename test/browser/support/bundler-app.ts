import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { build } from 'vite';

const project = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));

/**
 * What `vite build` picks under NODE_ENV=production, spelled out: Vitest runs with NODE_ENV=test,
 * under which Vite resolves Lit's development build and React's development build.
 */
export const PRODUCTION = {
  resolve: { conditions: ['module', 'browser', 'production'] },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
};

/** The same under the `development` condition (Vite's dev server, webpack's development mode). */
export const DEVELOPMENT = {
  resolve: { conditions: ['module', 'browser', 'development'] },
  define: { 'process.env.NODE_ENV': JSON.stringify('development') },
};

/** The package's development build as `tsc -p tsconfig.build.json` emits it (the JavaScript and the JSON it imports; no type check). */
async function developmentBuild(outDir: string, directory = project('src')): Promise<void> {
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const source = join(directory, entry.name);
    if (entry.isDirectory()) await developmentBuild(outDir, source);
    // Data the modules import (the contract's rules.json), which tsc copies beside them.
    if (entry.isFile() && entry.name.endsWith('.json')) {
      await mkdir(join(outDir, relative(project('src'), directory)), { recursive: true });
      await copyFile(source, join(outDir, relative(project('src'), source)));
      continue;
    }
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
    const { outputText } = ts.transpileModule(await readFile(source, 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        useDefineForClassFields: false,
        verbatimModuleSyntax: true,
      },
      fileName: source,
    });
    const target = join(outDir, relative(project('src'), source).replace(/\.ts$/, '.js'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
}

/**
 * Builds a shop's app that installed `live-visitors` from npm: the package as it ships (this
 * package.json with its `exports` and `sideEffects`, and both library builds as `npm run build`
 * emits them: production in `dist/lib`, development in `dist/lib/development`) inside the app's
 * `node_modules`, and `entries` bundled by Vite's build under the given export condition.
 * Returns the bundled files by name. The app lives under the project's `node_modules/.cache`, so
 * the package's own dependency (lit) resolves as it would for a shop.
 */
export async function buildBundlerApp(
  entries: Record<string, string>,
  condition: 'production' | 'development' = 'production',
): Promise<Map<string, string>> {
  const cache = project('node_modules/.cache');
  await mkdir(cache, { recursive: true });
  const app = await mkdtemp(join(cache, 'live-visitors-shop-app-'));
  try {
    const installed = join(app, 'node_modules', 'live-visitors');
    await build({ configFile: project('vite.library.config.ts'), logLevel: 'silent', build: { outDir: join(installed, 'dist', 'lib') } });
    await developmentBuild(join(installed, 'dist', 'lib', 'development'));
    await copyFile(project('package.json'), join(installed, 'package.json'));
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'shop-app', private: true, type: 'module' }));
    const input: Record<string, string> = {};
    for (const [name, code] of Object.entries(entries)) {
      input[name] = join(app, `${name}.js`);
      await writeFile(input[name], code);
    }
    const outDir = join(app, 'out');
    await build({
      configFile: false,
      root: app,
      logLevel: 'silent',
      ...(condition === 'production' ? PRODUCTION : DEVELOPMENT),
      build: {
        outDir,
        target: 'es2022',
        sourcemap: false,
        modulePreload: false,
        copyPublicDir: false,
        rolldownOptions: { input, output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' } },
      },
    });
    const files = new Map<string, string>();
    for (const file of await readdir(outDir)) files.set(file, await readFile(join(outDir, file), 'utf8'));
    return files;
  } finally {
    await rm(app, { recursive: true, force: true });
  }
}
