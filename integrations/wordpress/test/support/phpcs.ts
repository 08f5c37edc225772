import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface PhpcsReport {
  readonly totals: { errors: number; warnings: number; fixable: number };
  readonly files: Record<string, { messages: { line: number; source: string }[] }>;
}

/**
 * PHP_CodeSniffer with the plugin's ruleset, its JSON report read. `env` replaces the environment
 * (a test runs it with a PATH that has no phpcs).
 */
export function phpcs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): { report: PhpcsReport; status: number | null } {
  const result = spawnSync('phpcs', [`--standard=${join(ROOT, 'phpcs.xml')}`, '--report=json', ...args], { encoding: 'utf8', env });
  return { report: JSON.parse(result.stdout) as PhpcsReport, status: result.status };
}
