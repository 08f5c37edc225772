import { afterEach, describe, expect, it } from 'vitest';
import type { StandInKind } from '../../emulator/src/sources/stand-in-state.js';
import type { RealtimeErrorKind } from '../../src/contract/errors.js';
import { parseRelayConfig } from '../src/config.js';
import { Redactor, secretForms } from '../src/redaction.js';
import { createRelay } from '../src/relay.js';
import { fetchWebsiteReport } from '../src/sources/fetch-website-report.js';
import { standInsForSuite } from './sources-stand-ins.js';

/**
 * Each service's failures, imposed on its stand-in over loopback HTTP, map to the relay's own
 * failure kinds, and nothing the service says carries a secret out. Not run: the real services'
 * failures (none is reachable from here); the bodies are the shapes their documentation shows.
 */

const suite = standInsForSuite();
const KINDS = ['plausible', 'umami', 'matomo', 'ga4', 'fathom'] as const;

afterEach(() => {
  for (const kind of KINDS) suite.server.standIns.state.impose(kind, null);
});

/** A body holding `count` in each service's own answer shape. */
const COUNT_BODY: Record<StandInKind, (count: string) => string> = {
  plausible: (count) => count,
  umami: (count) => `{"visitors":${count}}`,
  matomo: (count) => `[{"visits":"1","visitors":${JSON.stringify(count)},"actions":"1","visitsConverted":"0"}]`,
  ga4: (count) =>
    `{"metricHeaders":[{"name":"activeUsers","type":"TYPE_INTEGER"}],"rows":[{"metricValues":[{"value":${JSON.stringify(count)}}]}],"rowCount":1}`,
  fathom: (count) => `{"total":${count}}`,
};

async function readOnce(kind: (typeof KINDS)[number], timeoutMs = 2_000) {
  const website = parseRelayConfig({ upstream: 'https://unused.example', websites: [{ id: 'my-shop', source: suite.sources[kind] }] })
    .websites[0]!;
  // A fresh source per read, so its own minimum interval never refuses the next case.
  return fetchWebsiteReport({
    upstream: 'https://unused.example',
    website,
    fetch,
    now: suite.server.clock.now,
    timeoutMs,
    redactor: new Redactor([]),
  });
}

const FAILURES: ReadonlyArray<
  readonly [string, (kind: StandInKind) => { status: number; body: string; headers?: Record<string, string> }, RealtimeErrorKind]
> = [
  ['401 (bad key)', () => ({ status: 401, body: '{"error":"Invalid API key"}' }), 'unauthorized'],
  [
    '403 (no access)',
    () => ({ status: 403, body: '{"error":{"code":403,"message":"Forbidden","status":"PERMISSION_DENIED"}}' }),
    'unauthorized',
  ],
  ['404 (unknown site)', () => ({ status: 404, body: '{"error":"Site not found"}' }), 'not-found'],
  [
    '429 with Retry-After',
    () => ({ status: 429, body: '{"error":"Too many requests"}', headers: { 'Retry-After': '120' } }),
    'rate-limited',
  ],
  ['500', () => ({ status: 500, body: 'oops' }), 'server'],
  ['503', () => ({ status: 503, body: '{"error":"maintenance"}' }), 'server'],
  [
    'an HTML login page with 200',
    () => ({ status: 200, body: '<!doctype html><title>Log in</title><form>…</form>', headers: { 'Content-Type': 'text/html' } }),
    'invalid-response',
  ],
  ['a body that is not JSON', () => ({ status: 200, body: 'visitors: 3' }), 'invalid-response'],
  ['a negative count', (kind) => ({ status: 200, body: COUNT_BODY[kind]('-4') }), 'invalid-response'],
  ['a fractional count', (kind) => ({ status: 200, body: COUNT_BODY[kind]('2.5') }), 'invalid-response'],
  ['a count too big', (kind) => ({ status: 200, body: COUNT_BODY[kind]('100000000000') }), 'invalid-response'],
  ['an empty object', () => ({ status: 200, body: '{}' }), 'invalid-response'],
];

describe.each(KINDS)("%s: each failure of the service is one of the relay's kinds", (kind) => {
  it.each(FAILURES)('%s', async (_name, answer, expected) => {
    suite.server.standIns.state.impose(kind, answer(kind));
    const result = await readOnce(kind);
    expect(result).toHaveProperty('failure.kind', expected);
    if (expected === 'rate-limited') expect(result).toHaveProperty('failure.retryAfterMs', 120_000);
  });

  it("a redirect is no answer, and the advice names the source's base (not upstream)", async () => {
    suite.server.standIns.state.impose(kind, { status: 301, body: '', headers: { Location: 'https://elsewhere.example/' } });
    const result = await readOnce(kind);
    expect(result).toHaveProperty('failure.kind', 'invalid-response');
    expect(result).toHaveProperty('failure.reason', expect.stringMatching(/^answered 301: set this website's source base/));
  });

  it('a 402 (Plausible: a site locked for want of a subscription) says so', async () => {
    suite.server.standIns.state.impose(kind, {
      status: 402,
      body: JSON.stringify({ error: 'This Plausible site is locked due to missing active subscription.' }),
    });
    const result = await readOnce(kind);
    expect(result).toHaveProperty('failure.kind', 'invalid-response');
    expect(result).toHaveProperty(
      'failure.reason',
      expect.stringMatching(/^answered 402: the service refuses this site on its account's plan/),
    );
  });

  it('no answer within the timeout is a timeout', async () => {
    suite.server.standIns.state.impose(kind, { status: 200, body: '1', delayMs: 1_500 });
    expect(await readOnce(kind, 300)).toHaveProperty('failure.kind', 'timeout');
  });
});

describe('matomo: errors with status 200 are errors', () => {
  it.each([
    ["You can't access this resource as it requires 'view' access for the website id = 1.", 'unauthorized'],
    ["An unexpected website was found in the request: website id was set to '9' .", 'not-found'],
    ['The plugin Live is not enabled.', 'invalid-response'],
  ] as const)('%s', async (message, expected) => {
    suite.server.standIns.state.impose('matomo', { status: 200, body: JSON.stringify({ result: 'error', message }) });
    expect(await readOnce('matomo')).toHaveProperty('failure.kind', expected);
  });

  it('the stand-in itself answers a wrong token_auth with 200 and an error, and the relay calls it unauthorized', async () => {
    const website = parseRelayConfig({
      upstream: 'https://unused.example',
      websites: [{ id: 'my-shop', source: { ...suite.sources.matomo, tokenAuth: 'ffffffffffffffffffffffffffffffff' } }],
    }).websites[0]!;
    const result = await fetchWebsiteReport({
      upstream: 'https://x.example',
      website,
      fetch,
      now: suite.server.clock.now,
      timeoutMs: 2_000,
      redactor: new Redactor([]),
    });
    expect(result).toHaveProperty('failure.kind', 'unauthorized');
    expect(result).toHaveProperty('failure.status', 200);
  });
});

describe('what a service says never carries a secret out', () => {
  /** Each kind's secret as it travels, quoted back by a hostile service in its error, raw and encoded. */
  const ECHOES: Record<StandInKind, string> = {
    plausible: '{{header:authorization}}',
    umami: '{{header:x-umami-api-key}}',
    matomo: '',
    ga4: '{{header:authorization}}',
    fathom: '{{header:authorization}}',
  };

  it.each(['plausible', 'umami', 'ga4', 'fathom'] as const)('%s: a 401 quoting the credential back', async (kind) => {
    suite.server.standIns.state.impose(kind, {
      status: 401,
      body: JSON.stringify({ error: `bad credential ${ECHOES[kind]} (${ECHOES[kind]})` }),
    });
    const lines: string[] = [];
    const relay = createRelay({
      config: { upstream: 'https://unused.example', websites: [{ id: 'my-shop', source: suite.sources[kind] } as never] },
      now: suite.server.clock.now,
      log: (line) => lines.push(line),
    });
    const response = await relay(new Request('http://relay.test/api/v1/realtime?websiteId=my-shop'));
    expect(response.status).toBe(502);
    const text = `${await response.text()}\n${lines.join('\n')}`;
    expect(lines.join('\n')).toMatch(/bad credential (Bearer )?\[token\]/);
    for (const secret of secretsOf(kind)) for (const form of secretForms(secret)) expect(text).not.toContain(form);
    // GA4's access token is obtained at run time: no form of "ya29." followed by its value is left.
    expect(text).not.toMatch(/ya29\.stand-in-[0-9a-f]/);
  });

  it('ga4: an error quoting the service-account key as its JSON file holds it (lines joined by \\n)', async () => {
    const credentials = suite.sources.ga4.credentials as { private_key: string };
    suite.server.standIns.state.impose('ga4', {
      status: 403,
      body: JSON.stringify({ error: { code: 403, message: `key ${JSON.stringify(credentials)}`, status: 'PERMISSION_DENIED' } }),
    });
    const result = await readOnce('ga4');
    expect(result).toHaveProperty('failure.kind', 'unauthorized');
    const said = 'failure' in result ? (result.failure.said ?? '') : '';
    expect(said).toContain('[token]');
    // Every line of the key's base64 (the last, short one apart): none may be read back.
    const lines = credentials.private_key.split('\n').filter((line) => /^[A-Za-z0-9+/=]{16,}$/.test(line));
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(said).not.toContain(line);
  });

  it('matomo: an error message quoting token_auth', async () => {
    const tokenAuth = suite.sources.matomo.tokenAuth as string;
    suite.server.standIns.state.impose('matomo', {
      status: 200,
      body: JSON.stringify({ result: 'error', message: `token_auth ${tokenAuth} / ${btoa(tokenAuth)} is not valid` }),
    });
    const result = await readOnce('matomo');
    expect(result).toHaveProperty('failure.kind', 'unauthorized');
    const said = 'failure' in result ? (result.failure.said ?? '') : '';
    expect(said).toContain('token_auth [');
    for (const form of secretForms(tokenAuth)) expect(said).not.toContain(form);
  });
});

function secretsOf(kind: StandInKind): string[] {
  const source = suite.sources[kind] as Record<string, unknown>;
  if (kind === 'ga4') return [(source.credentials as { private_key: string }).private_key];
  return [source.apiKey as string];
}
