// @vitest-environment node
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../server-kit/config-checks.js';
import { DEFAULT_EMULATOR_CONFIG, loadEmulatorConfig, parseEmulatorConfig } from '../src/config.js';

const site = (fields: Record<string, unknown> = {}) => ({ id: 'shop', token: 'shop-token', plan: 'free', ...fields });

function issuesOf(input: unknown): readonly string[] {
  try {
    parseEmulatorConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('the config was accepted');
}

describe('parseEmulatorConfig', () => {
  it('accepts the default config and a minimal one, unchanged', () => {
    expect(parseEmulatorConfig(JSON.parse(JSON.stringify(DEFAULT_EMULATOR_CONFIG)))).toEqual(DEFAULT_EMULATOR_CONFIG);
    expect(parseEmulatorConfig({ websites: [site()] })).toEqual({ websites: [site()] });
    expect(DEFAULT_EMULATOR_CONFIG.websites[0]).toEqual({ id: 'demo-shop', token: 'demo-token', plan: 'enterprise' });
  });

  it.each([
    ['not an object', [], 'the config must be a JSON object like { "websites": [ … ] }'],
    ['without websites', {}, 'websites must be an array of { "id", "token", "plan" } objects'],
    ['with no website', { websites: [] }, 'websites must list at least one website'],
    ['with a misspelt field', { websites: [site()], website: [] }, 'website is not a known field (expected websites)'],
    [
      'with a website that is not an object',
      { websites: ['shop'] },
      'websites[0] must be an object like { "id": "my-shop", "token": "…", "plan": "free" }',
    ],
    ['with a numeric id', { websites: [site({ id: 7 })] }, 'websites[0].id must be a non-empty string'],
    ['with an empty id', { websites: [site({ id: '' })] }, 'websites[0].id must be a non-empty string'],
    ['with an overlong id', { websites: [site({ id: 'x'.repeat(257) })] }, 'websites[0].id must be at most 256 characters'],
    ['with a control character in the id', { websites: [site({ id: 'a\nb' })] }, 'websites[0].id must not contain control characters'],
    ['without token', { websites: [{ id: 'shop', plan: 'free' }] }, 'websites[0].token must be a non-empty string'],
    [
      'with a token a header cannot carry',
      { websites: [site({ token: 'has space' })] },
      'websites[0].token may only contain letters, digits and - . _ ~ + / (then optional trailing =), as a Bearer token must',
    ],
    [
      'with an unknown plan',
      { websites: [site({ plan: 'gold' })] },
      'websites[0].plan must be one of "free", "pro", "enterprise" (got "gold")',
    ],
    [
      'with a misspelt website field',
      { websites: [site({ plna: 'free' })] },
      'websites[0].plna is not a known field (expected id, token, plan)',
    ],
    ['with a duplicate id', { websites: [site(), site({ token: 'other' })] }, 'websites[1].id "shop" is used by an earlier website'],
    [
      'with a shared token',
      { websites: [site(), site({ id: 'other' })] },
      'websites[1].token is used by an earlier website; each website needs its own token',
    ],
  ])('refuses a config %s, naming the field', (_case, input, issue) => {
    expect(issuesOf(input)).toContain(issue);
  });

  it('lists every problem at once, in a message that names its source', () => {
    let caught: unknown;
    try {
      parseEmulatorConfig({ websites: [site({ plan: 'gold' }), site({ id: '', token: 'x' })] }, 'sites.json');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.what).toBe('emulator');
    expect(error.source).toBe('sites.json');
    expect(error.issues).toHaveLength(2);
    expect(error.message).toBe(
      'Invalid emulator config (sites.json):\n  - websites[0].plan must be one of "free", "pro", "enterprise" (got "gold")\n  - websites[1].id must be a non-empty string',
    );
  });
});

describe('loadEmulatorConfig', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'emulator-config-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('reads and validates a JSON file', async () => {
    const path = join(folder, 'good.json');
    await writeFile(path, JSON.stringify({ websites: [site()] }));
    expect(await loadEmulatorConfig(path)).toEqual({ websites: [site()] });
  });

  it.each([
    ['a missing file', 'missing.json', undefined, /cannot read the file \(ENOENT\)/],
    ['a file that is not JSON', 'bad.json', '{ websites: ', /the file is not valid JSON/],
    ['an invalid config', 'invalid.json', '{ "websites": [] }', /websites must list at least one website/],
  ])('refuses %s with a ConfigError naming the file', async (_case, name, content, message) => {
    const path = join(folder, name);
    if (content !== undefined) await writeFile(path, content);
    const failure = loadEmulatorConfig(path);
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toMatchObject({ what: 'emulator', source: path });
    await expect(failure).rejects.toThrow(message);
    await expect(failure).rejects.toThrow(path);
  });
});
