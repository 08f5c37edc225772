import { readFile } from 'node:fs/promises';
import { EmulatorConfigError, parseEmulatorConfig, type EmulatorConfig } from './config.js';

/** Reads and validates a JSON config file; every failure is an `EmulatorConfigError` naming the file. */
export async function loadEmulatorConfig(path: string): Promise<EmulatorConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new EmulatorConfigError(path, [`cannot read the file: ${describe(error)}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new EmulatorConfigError(path, [`the file is not valid JSON: ${describe(error)}`]);
  }
  return parseEmulatorConfig(json, path);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
