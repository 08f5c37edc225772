import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseRelayConfig, RelayConfigError } from '../src/config.js';
import { parseRelayConfigWithEnvironment } from '../src/environment-overrides.js';

const KEY = `2026-11:${btoa('k'.repeat(32))}`;
const SECRET_PART = KEY.slice('2026-11:'.length);
const base = { upstream: 'https://analytics.example', selfServe: true, encryptionKeys: [KEY] };

function issuesOf(input: unknown, env?: Record<string, string>): string[] {
  try {
    if (env) parseRelayConfigWithEnvironment(input, env);
    else parseRelayConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(RelayConfigError);
    return [...(error as RelayConfigError).issues];
  }
  return [];
}

describe('the self-serve fields of the relay config', () => {
  it('takes a config with no websites of its own, and keeps the keys out of JSON and console output', () => {
    const config = parseRelayConfig(base);
    expect(config.websites).toEqual([]);
    expect(config.encryptionKeys).toEqual([KEY]);
    expect(JSON.stringify(config)).not.toContain(SECRET_PART);
    expect(inspect(config, { depth: 5 })).not.toContain(SECRET_PART);
    expect(parseRelayConfig(config).encryptionKeys).toEqual([KEY]);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['no key', { encryptionKeys: [] }, /encryptionKeys must list at least one key/],
    ['a key of 16 bytes', { encryptionKeys: [`short:${btoa('s'.repeat(16))}`] }, /key "short"\) must be 32 random bytes/],
    ['a key without an id', { encryptionKeys: [btoa('k'.repeat(32))] }, /must be "id:base64"/],
    ['two keys with one id', { encryptionKeys: [KEY, KEY] }, /repeats the key id "2026-11"/],
    ['a file beside Redis', { registrationsFile: './r.json', store: 'redis://127.0.0.1:6379/0' }, /registrationsFile is for one instance/],
    ['selfServe as text', { selfServe: 'yes' }, /selfServe must be true or false/],
    ['maxWebsites of zero', { maxWebsites: 0 }, /maxWebsites must be a whole number of websites from 1/],
  ])('refuses %s, naming the field and never quoting a key', (_name, overrides, issue) => {
    const issues = issuesOf({ ...base, ...overrides });
    expect(issues.join('\n')).toMatch(issue);
    expect(issues.join('\n')).not.toContain(SECRET_PART);
  });

  it('still wants websites without selfServe', () => {
    expect(issuesOf({ upstream: 'https://analytics.example' }).join('\n')).toMatch(/websites must list at least one website/);
  });

  it('reads every field from its LIVE_VISITORS_* variable, naming the variable in an error', () => {
    const config = parseRelayConfigWithEnvironment(
      { upstream: 'https://analytics.example' },
      {
        LIVE_VISITORS_SELF_SERVE: 'true',
        LIVE_VISITORS_ENCRYPTION_KEYS: ` ${KEY} , old:${btoa('o'.repeat(32))}`,
        LIVE_VISITORS_REGISTRATIONS_PER_HOUR: '30',
        LIVE_VISITORS_MAX_WEBSITES: '50',
        LIVE_VISITORS_REGISTRATIONS_FILE: '/var/lib/relay/registrations.json',
        LIVE_VISITORS_REGISTRATIONS_MAY_BE_LOST: 'false',
      },
    );
    expect(config).toMatchObject({
      selfServe: true,
      registrationsPerHour: 30,
      maxWebsites: 50,
      registrationsFile: '/var/lib/relay/registrations.json',
      registrationsMayBeLost: false,
    });
    expect(config.encryptionKeys.map((key) => key.split(':')[0])).toEqual(['2026-11', 'old']);
    const issues = issuesOf(
      { upstream: 'https://analytics.example' },
      { LIVE_VISITORS_SELF_SERVE: 'on', LIVE_VISITORS_ENCRYPTION_KEYS: KEY },
    );
    expect(issues).toContain('selfServe (from LIVE_VISITORS_SELF_SERVE) must be true or false (got "on")');
  });
});
