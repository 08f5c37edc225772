import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface PhpcsReport {
  readonly totals: { errors: number; warnings: number; fixable: number };
  readonly files: Record<string, { messages: { line: number; source: string }[] }>;
}

export const PHPCS_MISSING = 'PHP_CodeSniffer (phpcs) is not installed: apt-get install php-codesniffer';

/**
 * PHP_CodeSniffer with the plugin's ruleset, its JSON report read. `env` replaces the environment
 * (a test runs it with a PATH that has no phpcs). Without phpcs it says so and how to install it,
 * as the browser suite does for Chromium, rather than failing later on a report that is not there.
 */
export function phpcs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): { report: PhpcsReport; status: number | null } {
  const result = spawnSync('phpcs', [`--standard=${join(ROOT, 'phpcs.xml')}`, '--report=json', ...args], { encoding: 'utf8', env });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new Error(PHPCS_MISSING);
  if (!result.stdout?.startsWith('{'))
    throw new Error(`phpcs printed no JSON report (exit ${result.status}): ${result.stderr || result.stdout}`);
  return { report: JSON.parse(result.stdout) as PhpcsReport, status: result.status };
}
