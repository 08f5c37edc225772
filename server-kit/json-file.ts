import { readFile } from 'node:fs/promises';
import { ConfigError } from './config-checks.js';
import { nearPosition } from './json-position.js';

/**
 * Reads a JSON file for a config; a file that cannot be read or parsed is a `ConfigError`
 * naming the file. The file's text is never quoted: it holds tokens.
 */
export async function readJsonConfigFile(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(what, path, [`cannot read the file${code ? ` (${code})` : ''}`]);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(what, path, [`the file is not valid JSON${nearPosition(error)}`]);
  }
}
