import { readFile } from 'node:fs/promises';
import { RelayConfigError, type RelayConfig } from './config.js';
import { parseRelayConfigWithEnvironment, type EnvironmentVariables } from './environment-overrides.js';

/**
 * Reads a JSON config file and validates it, with environment variables overriding its fields.
 * Every failure is a `RelayConfigError` naming the file; none quotes the file's text (it holds tokens).
 */
export async function loadRelayConfig(path: string, env: EnvironmentVariables = {}): Promise<RelayConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RelayConfigError(path, [`cannot read the file${code ? ` (${code})` : ''}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    throw new RelayConfigError(path, [`the file is not valid JSON${position ? ` (near character ${position})` : ''}`]);
  }
  return parseRelayConfigWithEnvironment(json, env, path);
}
