// @vitest-environment node
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandIo, runServerCommand } from '../../server-kit/command.js';
import { relayCommand } from '../src/command.js';
import { parseRelayConfig } from '../src/config.js';
import { parseRelayConfigWithEnvironment } from '../src/environment-overrides.js';
import { secretForms } from '../src/redaction.js';

/** A source's bad input stops the relay at start, naming the file and the field, and never quoting a secret. */

const KEY = 'pk-SECRET-5b8e2d9c41';
const SERVICE_ACCOUNT = {
  type: 'service_account',
  client_email: 'relay@project.iam.gserviceaccount.com',
  private_key: `-----BEGIN PRIVATE KEY-----\n${'QUJD'.repeat(60)}\n-----END PRIVATE KEY-----\n`,
  token_uri: 'https://oauth2.googleapis.com/token',
};

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-sources-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** Runs the relay command on a config file holding one website with `website`'s fields; resolves with its exit code and stderr. */
async function start(website: Record<string, unknown>, env: Record<string, string> = {}) {
  const path = join(folder, `relay-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify({ upstream: 'https://analytics.example', websites: [{ id: 'my-shop', ...website }] }));
  let err = '';
  const io: CommandIo = {
    stdout() {},
    stderr(text) {
      err += text;
    },
    env,
    onStopSignal: () => () => {},
  };
  const exit = await runServerCommand(relayCommand, ['--port', '0', '--config', path], io);
  return { exit, err, path };
}

describe('the relay refuses to start on a bad source, naming the file and the field', () => {
  it.each([
    [
      'an unknown kind',
      { source: { kind: 'simple-analytics', siteId: 'x', apiKey: KEY } },
      'websites[0].source.kind must be one of plausible, umami, matomo, ga4, fathom',
    ],
    ['a missing field', { source: { kind: 'plausible', siteId: 'shop.example' } }, 'websites[0].source.apiKey is required'],
    ['a missing site', { source: { kind: 'fathom', apiKey: KEY } }, 'websites[0].source.siteId must be a non-empty string'],
    [
      'a misspelt field',
      { source: { kind: 'plausible', site_id: 'shop.example', apiKey: KEY } },
      'websites[0].source.site_id is not a known field',
    ],
    [
      'a base with credentials',
      { source: { kind: 'plausible', base: `https://me:${KEY}@plausible.example`, siteId: 's', apiKey: KEY } },
      'websites[0].source.base must not contain a user name or password',
    ],
    [
      'a base in plain http to another machine',
      { source: { kind: 'plausible', base: 'http://plausible.example', siteId: 's', apiKey: KEY } },
      'websites[0].source.base must use https',
    ],
    [
      'Matomo without its base',
      { source: { kind: 'matomo', siteId: 1, tokenAuth: KEY } },
      'websites[0].source.base is required for this kind',
    ],
    [
      'a key with spaces',
      { source: { kind: 'plausible', siteId: 's', apiKey: `Bearer ${KEY}` } },
      'websites[0].source.apiKey must be printable characters without spaces',
    ],
    [
      'a key with a line break',
      { source: { kind: 'umami', websiteId: 'w', apiKey: `${KEY}\n` } },
      'websites[0].source.apiKey must be printable characters without spaces',
    ],
    [
      'a token and a source',
      { token: KEY, source: { kind: 'plausible', siteId: 's', apiKey: KEY } },
      'websites[0] takes a token (for upstream) or a source, not both',
    ],
    [
      'Umami with a key and a log-in',
      { source: { kind: 'umami', websiteId: 'w', apiKey: KEY, username: 'admin', password: KEY } },
      'websites[0].source takes apiKey (Umami Cloud) or username and password (self-hosted), not both',
    ],
    [
      'Umami with a user but no password',
      { source: { kind: 'umami', websiteId: 'w', username: 'admin' } },
      'websites[0].source needs both username and password',
    ],
    [
      "a budget above the service's limit",
      { source: { kind: 'plausible', siteId: 's', apiKey: KEY, hourlyBudget: 601 } },
      'websites[0].source.hourlyBudget must be a whole number of requests from 1 to 600',
    ],
    [
      'Matomo counting more than an hour',
      { source: { kind: 'matomo', base: 'https://m.example', siteId: 1, tokenAuth: KEY, lastMinutes: 120 } },
      'websites[0].source.lastMinutes must be a whole number of minutes from 1 to 60',
    ],
    [
      'a GA4 measurement id for the property',
      { source: { kind: 'ga4', propertyId: 'G-ABC123', credentials: SERVICE_ACCOUNT } },
      "websites[0].source.propertyId must be the GA4 property's numeric id",
    ],
    [
      'a service account JSON that is not one',
      { source: { kind: 'ga4', propertyId: '1', credentials: { ...SERVICE_ACCOUNT, type: 'authorized_user' } } },
      "websites[0].source.credentials must be a service account's JSON key",
    ],
    [
      'a service account key as text that is not JSON',
      { source: { kind: 'ga4', propertyId: '1', credentials: `{ "type": "service_account", ${KEY}` } },
      "websites[0].source.credentials must be the service account's JSON key (the file Google Cloud downloads), and this text is not JSON",
    ],
    [
      'a service account without its private key',
      { source: { kind: 'ga4', propertyId: '1', credentials: { ...SERVICE_ACCOUNT, private_key: KEY } } },
      "websites[0].source.credentials.private_key must be the key's PEM",
    ],
    [
      'a token_uri in plain http',
      { source: { kind: 'ga4', propertyId: '1', credentials: { ...SERVICE_ACCOUNT, token_uri: 'http://oauth2.example/token' } } },
      'websites[0].source.credentials.token_uri must be an https URL',
    ],
    [
      'a secret from a variable that is not set',
      { source: { kind: 'plausible', siteId: 's', apiKey: { env: 'PLAUSIBLE_API_KEY' } } },
      'websites[0].source.apiKey names the environment variable PLAUSIBLE_API_KEY, which is not set',
    ],
  ])('%s', async (_name, website, issue) => {
    const { exit, err, path } = await start(website);
    expect(exit).toBe(2);
    expect(err).toContain(`Invalid relay config (${path})`);
    expect(err).toContain(issue);
    for (const form of secretForms(KEY)) expect(err).not.toContain(form);
    expect(err).not.toContain(SERVICE_ACCOUNT.private_key.slice(30, 60));
  });
});

describe('a good source', () => {
  const website = { id: 'my-shop', source: { kind: 'plausible', siteId: 'shop.example', apiKey: KEY } };

  it('keeps its secret out of logs and JSON, and parses again to the same config', () => {
    const config = parseRelayConfig({ upstream: 'https://analytics.example', websites: [website] });
    const source = config.websites[0]!.source as unknown as Record<string, unknown>;
    expect(source.apiKey).toBe(KEY);
    expect(JSON.stringify(config)).not.toContain(KEY);
    expect(JSON.stringify(config.websites[0])).toBe(
      '{"id":"my-shop","source":{"kind":"plausible","base":"https://plausible.io","hourlyBudget":300,"siteId":"shop.example"}}',
    );
    const again = parseRelayConfig(config);
    expect(JSON.stringify(again)).toBe(JSON.stringify(config));
    expect((again.websites[0]!.source as unknown as Record<string, unknown>).apiKey).toBe(KEY);
  });

  it('reads a secret from the environment variable it names (platforms with secret stores)', () => {
    const config = parseRelayConfigWithEnvironment(
      {
        upstream: 'https://analytics.example',
        websites: [{ ...website, source: { ...website.source, apiKey: { env: 'PLAUSIBLE_API_KEY' } } }],
      },
      { PLAUSIBLE_API_KEY: KEY },
    );
    expect((config.websites[0]!.source as unknown as Record<string, unknown>).apiKey).toBe(KEY);
  });

  it('takes a GA4 key as its JSON text from the environment, as platforms store it', () => {
    const config = parseRelayConfigWithEnvironment(
      {
        upstream: 'https://analytics.example',
        websites: [{ id: 'my-shop', source: { kind: 'ga4', propertyId: '123', credentials: { env: 'GA4_KEY' } } }],
      },
      { GA4_KEY: JSON.stringify(SERVICE_ACCOUNT) },
    );
    expect(JSON.stringify(config)).not.toContain('PRIVATE KEY');
    expect(config.websites[0]!.source).toMatchObject({ kind: 'ga4', propertyId: '123', minutes: 3 });
    // As createRelay does with the config relayConfigFromEnvironment gave it.
    expect(parseRelayConfig(config).websites[0]!.source).toEqual(config.websites[0]!.source);
  });
});
