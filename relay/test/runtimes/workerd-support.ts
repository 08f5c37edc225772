import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { WorkerOptions } from 'miniflare';
import { BIN, bundleTemplate, TEMPLATES } from './runtime-support.js';

export const WORKER_TEMPLATE = join(TEMPLATES, 'cloudflare');

/** The fields of wrangler.toml that shape the Worker's runtime. */
interface WranglerConfig {
  readonly main: string;
  readonly compatibility_date: string;
  readonly compatibility_flags?: string[];
  readonly vars?: Record<string, string>;
  readonly durable_objects?: { readonly bindings?: ReadonlyArray<{ readonly name: string; readonly class_name: string }> };
  readonly migrations?: ReadonlyArray<{ readonly new_sqlite_classes?: string[]; readonly new_classes?: string[] }>;
}

/** Node has no TOML parser and none is installed; Bun's built-in one reads the file as wrangler would. */
export async function readWranglerConfig(): Promise<WranglerConfig> {
  const script = 'console.log(JSON.stringify(Bun.TOML.parse(await Bun.file("wrangler.toml").text())))';
  const { stdout } = await promisify(execFile)(join(BIN, 'bun'), ['-e', script], { cwd: WORKER_TEMPLATE, timeout: 10_000 });
  return JSON.parse(stdout) as WranglerConfig;
}

/** esbuild with wrangler's conditions, so the package (and srvx) resolve to their workerd builds. */
export function bundleWorker(entry: string): Promise<string> {
  return bundleTemplate(entry, { format: 'esm', conditions: ['workerd', 'worker', 'browser'] });
}

/**
 * The template's Worker as Miniflare runs it for `wrangler dev`: its bundle, wrangler.toml's
 * compatibility settings, vars and Durable Object bindings (SQLite-backed when a migration says
 * so), and `secrets` on top, as .dev.vars would give them. `coordinatorScript` names the Worker
 * whose class serves the binding, for a second isolate of the same fleet.
 */
export async function templateWorker(
  secrets: Readonly<Record<string, string>>,
  options: { readonly coordinatorScript?: string; readonly coordinatorClass?: string } = {},
): Promise<WorkerOptions> {
  const wrangler = await readWranglerConfig();
  const sqliteClasses = new Set((wrangler.migrations ?? []).flatMap((migration) => migration.new_sqlite_classes ?? []));
  const durableObjects = Object.fromEntries(
    (wrangler.durable_objects?.bindings ?? []).map((binding) => {
      const className = options.coordinatorClass ?? binding.class_name;
      return [
        binding.name,
        {
          className,
          useSQLite: sqliteClasses.has(binding.class_name),
          ...(options.coordinatorScript ? { scriptName: options.coordinatorScript } : {}),
        },
      ];
    }),
  );
  return {
    modules: true,
    script: await bundleWorker(join(WORKER_TEMPLATE, wrangler.main)),
    compatibilityDate: wrangler.compatibility_date,
    compatibilityFlags: wrangler.compatibility_flags ?? [],
    bindings: { ...wrangler.vars, ...secrets },
    durableObjects,
  };
}

/** workerd's stdout and stderr, where the Workers' console goes, into one growing text. */
export function captureOutput(): { output(): string; handleRuntimeStdio(stdout: Readable, stderr: Readable): void } {
  let output = '';
  const read = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  return {
    output: () => output,
    handleRuntimeStdio(stdout, stderr) {
      stdout.on('data', read);
      stderr.on('data', read);
    },
  };
}
