import { execFileSync } from 'node:child_process';
import { writeRulesFile } from '../../build.js';

const SCRIPT = new URL('./plugin-readers.php', import.meta.url).pathname;

export type PluginReader = 'state' | 'budget' | 'lock' | 'clean' | 'words';

/**
 * Runs one of the plugin's readers (or its redactor) on every case in one PHP process; one result
 * per case. The contract's rules are written as PHP first, as the plugin's build writes them.
 */
export function readInPhp<Result>(reader: PluginReader, cases: readonly Record<string, unknown>[]): Result[] {
  writeRulesFile();
  const output = execFileSync('php', [SCRIPT], { input: JSON.stringify({ reader, cases }), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(output) as Result[];
}
