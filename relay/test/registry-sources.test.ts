import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { serveOnNode } from '../../server-kit/serve.js';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { rotateKeys } from '../src/registry/rotate-keys.js';
import { type Answer, answerText, type RelayHarness, startRelayHarness } from './support/relay-harness.js';

// Registering a website whose count comes from Plausible, Umami, Matomo, GA4 or Fathom (issue 32 §5),
// against the emulator's stand-ins of those services (emulator/src/sources), written from each
// service's published contract: the real services are not reachable here and were not asked.

/** The emulator knows this site; the relay's config does not. */
const SITE = 'not-relayed';
const TEST_KEYS = [`k1:${btoa('a'.repeat(32))}`];
type Kind = 'plausible' | 'umami' | 'matomo' | 'ga4' | 'fathom';
const KINDS: readonly Kind[] = ['plausible', 'umami', 'matomo', 'ga4', 'fathom'];

let current: RelayHarness | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function selfServing(moreSourceBases: readonly string[] = []): Promise<{
  harness: RelayHarness;
  store: MemoryRegistrationStore;
  sources: Record<Kind, Record<string, unknown>>;
}> {
  const store = new MemoryRegistrationStore();
  current = await startRelayHarness({
    config: { selfServe: true, encryptionKeys: TEST_KEYS },
    relay: { registrationStore: store },
    moreSourceBases,
  });
  const sources = (await (await fetch(`${current.emulator.url}/__emulator/sources/${SITE}`)).json()) as Record<
    Kind,
    Record<string, unknown>
  >;
  return { harness: current, store, sources };
}

function put(harness: RelayHarness, id: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return harness.request(`/api/v1/websites/${encodeURIComponent(id)}`, { method: 'PUT', headers, body: JSON.stringify(body) });
}

/** Registers a source under the website ID it makes (issue 35), which the answer names. */
function post(harness: RelayHarness, body: unknown): Promise<Answer> {
  return harness.request('/api/v1/websites', { method: 'POST', body: JSON.stringify(body) });
}

const idOf = (answer: Answer) => (answer.json as { websiteId: string }).websiteId;

function remove(harness: RelayHarness, id: string, init: { bearer?: string; body?: unknown }): Promise<Answer> {
  return harness.request(`/api/v1/websites/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    headers: init.bearer === undefined ? {} : { Authorization: `Bearer ${init.bearer}` },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** Each secret of a source as text: an API key, a token_auth, a password, a service account's private key. */
function secretsOf(source: Record<string, unknown>): string[] {
  const credentials = source.credentials as { private_key?: string } | undefined;
  return [source.apiKey, source.tokenAuth, source.password, credentials?.private_key].filter(
    (secret): secret is string => typeof secret === 'string',
  );
}

describe('a registration that names a source', () => {
  it.each(KINDS)('%s: checked with one request to the service, served with its window, its key in no answer', async (kind) => {
    const { harness, store, sources } = await selfServing();
    const source = sources[kind];
    const created = await post(harness, { source });
    expect(created.status, answerText(created)).toBe(201);
    const websiteId = idOf(created);
    expect(websiteId.startsWith(`${kind}:`)).toBe(true);
    const shown = (created.json as { source: Record<string, unknown> }).source;
    expect(shown.kind).toBe(kind);
    expect(shown.base).toBe(source.base);
    for (const field of ['apiKey', 'tokenAuth', 'password', 'credentials']) expect(shown).not.toHaveProperty(field);
    const asked = harness.upstreamCalls.length;
    expect(asked).toBeGreaterThanOrEqual(1);

    const served = await harness.get(`?websiteId=${encodeURIComponent(websiteId)}`);
    expect(served.status).toBe(200);
    const report = served.json as { currentVisitors: number; websiteId: string; windowMinutes?: number };
    expect(report.websiteId).toBe(websiteId);
    expect(Number.isInteger(report.currentVisitors)).toBe(true);
    // Plausible and Umami count 5 minutes; Matomo and GA4 default to the contract's 3; Fathom does not say.
    expect(report.windowMinutes).toBe(kind === 'plausible' || kind === 'umami' ? 5 : undefined);
    // The check's report is the first answer: the first shopper costs no second request.
    expect(harness.upstreamCalls).toHaveLength(asked);

    const view = [...(await store.all()).values()][0] as { source: Record<string, unknown>; tokenEnding: string };
    expect(view.source).toEqual(shown);
    const everything = [...harness.answers.map(answerText), ...harness.logs, JSON.stringify([...(await store.all())])].join('\n');
    for (const secret of secretsOf(source)) expect(everything).not.toContain(secret);
  });

  it('refuses secrets named from the environment, saying why, and stores nothing', async () => {
    const { harness, store, sources } = await selfServing();
    const answer = await post(harness, { source: { ...sources.plausible, apiKey: { env: 'PATH' } } });
    expect(answer.status).toBe(400);
    expect((answer.json as { error: string }).error).toMatch(/source\.apiKey must be the secret itself.*env/);
    expect(harness.upstreamCalls).toHaveLength(0);
    expect((await store.all()).size).toBe(0);
  });

  it.each([
    ['an unknown kind', { kind: 'heap', siteId: 'x' }, /source\.kind must be one of plausible/],
    ['a missing key', { kind: 'fathom', siteId: 'x' }, /source\.apiKey is required/],
    [
      'a base with credentials',
      { kind: 'plausible', base: 'https://me:pw@plausible.example', siteId: 'x', apiKey: 'k' },
      /user name or password/,
    ],
    ['a key with a space', { kind: 'plausible', siteId: 'x', apiKey: 'my key' }, /without spaces/],
  ])('refuses %s with 400 before asking anyone', async (_name, source, message) => {
    const { harness, store } = await selfServing();
    const answer = await post(harness, { source });
    expect(answer.status).toBe(400);
    expect((answer.json as { error: string }).error).toMatch(message);
    expect(answerText(answer)).not.toContain('pw@');
    expect(harness.upstreamCalls).toHaveLength(0);
    expect((await store.all()).size).toBe(0);
  });

  it('refuses a key the service refuses (401) and a site it does not know (404), storing nothing', async () => {
    // A server that is not Plausible's API (a bare 404), and an address nothing listens on: both listed, as an operator lists a shop's own service.
    const website = await serveOnNode(() => new Response('<h1>Not Found</h1>', { status: 404, headers: { 'Content-Type': 'text/html' } }), {
      port: 0,
      graceMs: 0,
    });
    onTestFinished(() => website.close());
    const { harness, store, sources } = await selfServing([new URL(website.url).origin, 'http://127.0.0.1:9']);
    const wrongKey = await post(harness, { source: { ...sources.plausible, apiKey: 'not-the-key-1234' } });
    expect(wrongKey.status).toBe(401);
    // Plausible answers 401 for a wrong key and a site the key cannot read alike: the owner hears both.
    expect((wrongKey.json as { error: string }).error).toBe(
      'Plausible refused the key or the site "not-relayed" (it answers the same for both): check "Stats API key" and "Site domain, as in Plausible"',
    );
    expect(answerText(wrongKey)).not.toContain('not-the-key-1234');
    // Fathom says 404 for a site it does not know (Plausible and Umami say 401, as the key cannot read it).
    const unknownSite = await post(harness, { source: { ...sources.fathom, siteId: 'nobody.example' } });
    expect(unknownSite.status).toBe(404);
    expect((unknownSite.json as { error: string }).error).toBe(
      'Fathom does not know the site "nobody.example": check "Site ID, as in Fathom"',
    );
    // Fathom tells a wrong key apart.
    const fathomKey = await post(harness, { source: { ...sources.fathom, apiKey: 'not-the-key-1234' } });
    expect((fathomKey.json as { error: string }).error).toBe('Fathom refused the key: copy "API key" again from Fathom');
    // A wrong address: a server that is not Plausible's API (a bare 404), and one nothing listens on.
    const elsewhere = await post(harness, { source: { ...sources.plausible, base: website.url } });
    expect([elsewhere.status, (elsewhere.json as { error: string }).error]).toEqual([
      404,
      `Nothing at "API address" (${website.url}) answers as Plausible's API: check the address`,
    ]);
    const nobody = await post(harness, { source: { ...sources.plausible, base: 'http://127.0.0.1:9' } });
    expect((nobody.json as { error: string }).error).toMatch(
      /^Plausible could not be reached at "API address" \(http:\/\/127\.0\.0\.1:9\): check the address, or try again later$/,
    );
    expect((await store.all()).size).toBe(0);
  });

  it('is replaced through its own site; a source or a token under another ID is refused with 400 naming the right one', async () => {
    const { harness, store, sources } = await selfServing();
    const created = await post(harness, { source: sources.plausible });
    expect(created.status).toBe(201);
    const id = idOf(created);
    expect((await put(harness, id, { source: sources.plausible, allowOrigins: ['https://shop.example'] })).status).toBe(200);
    // A stranger holding a key for another site (here Fathom's) gets that site's own ID, never this one.
    const otherSite = await put(harness, id, { source: sources.fathom });
    expect(otherSite.status).toBe(400);
    expect((otherSite.json as { error: string }).error).toMatch(/This source's website ID is "fathom:.*not-relayed"/);
    const byToken = await put(harness, id, {}, { Authorization: 'Bearer tokC-SECRET-0000' });
    expect(byToken.status).toBe(400);
    expect((byToken.json as { error: string }).error).toMatch(/names a plausible site: register it with its source \(POST/);
    const elsewhere = await put(harness, 'my-shop', { source: sources.plausible });
    expect(elsewhere.status).toBe(400);
    expect((elsewhere.json as { error: string }).error).toContain(`website ID is "${id}"`);
    expect([...(await store.all()).keys()]).toEqual([id]);
    expect((await harness.get(`?websiteId=${encodeURIComponent(id)}`)).status).toBe(200);
  });

  it('is removed with its stored key as a Bearer, and not with a wrong one', async () => {
    const { harness, store, sources } = await selfServing();
    const created = await post(harness, { source: sources.fathom });
    expect(created.status).toBe(201);
    const websiteId = idOf(created);
    const wrong = await remove(harness, websiteId, { bearer: 'not-the-key-1234' });
    expect(wrong.status).toBe(401);
    expect((await store.all()).size).toBe(1);
    expect((await remove(harness, websiteId, { bearer: sources.fathom.apiKey as string })).status).toBe(204);
    expect((await store.all()).size).toBe(0);
  });

  it('a GA4 registration, whose JSON key is no Bearer, is removed by sending its source again', async () => {
    const { harness, store, sources } = await selfServing();
    const created = await post(harness, { source: sources.ga4 });
    expect(created.status).toBe(201);
    const websiteId = idOf(created);
    expect((await remove(harness, websiteId, { bearer: 'not-the-key-1234' })).status).toBe(401);
    expect((await remove(harness, websiteId, { body: { source: { ...sources.ga4, propertyId: '2' } } })).status).toBe(401);
    expect((await remove(harness, websiteId, { body: { source: sources.ga4 } })).status).toBe(204);
    expect((await store.all()).size).toBe(0);
  });
});

describe('POST /api/v1/websites', () => {
  it('refuses a body without a source, another method, and a source too long for an ID, each with what to do, asking no one', async () => {
    const { harness, store, sources } = await selfServing();
    const noSource = await post(harness, { allowOrigins: ['https://shop.example'] });
    expect(noSource.status).toBe(400);
    expect((noSource.json as { error: string }).error).toMatch(
      /send \{ "source": .*PUT \/api\/v1\/websites\/\{websiteId\} with Authorization: Bearer/,
    );
    const put = await harness.request('/api/v1/websites', { method: 'PUT', body: JSON.stringify({ source: sources.plausible }) });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('POST');
    const long = await post(harness, { source: { ...sources.plausible, siteId: 's'.repeat(250) } });
    expect(long.status).toBe(400);
    expect((long.json as { error: string }).error).toMatch(/too long together: a website ID is at most 256 characters/);
    expect(harness.upstreamCalls).toHaveLength(0);
    expect((await store.all()).size).toBe(0);
  });
});

describe('a source registration under a rotated key', () => {
  it('is re-encrypted whole by rotate-keys and served again, with every secret still sealed', async () => {
    const store = new MemoryRegistrationStore();
    const OLD = `old:${btoa('o'.repeat(32))}`;
    const NEW = `new:${btoa('n'.repeat(32))}`;
    // The first relay's emulator stays up to the end: the stored sources' base addresses are its.
    const first = await startRelayHarness({ config: { selfServe: true, encryptionKeys: [OLD] }, relay: { registrationStore: store } });
    onTestFinished(() => first.close());
    const sources = (await (await fetch(`${first.emulator.url}/__emulator/sources/${SITE}`)).json()) as Record<
      Kind,
      Record<string, unknown>
    >;
    const ids: string[] = [];
    for (const kind of ['umami', 'ga4'] as const) {
      const created = await post(first, { source: sources[kind] });
      expect(created.status).toBe(201);
      ids.push(idOf(created));
    }

    expect(await rotateKeys({ encryptionKeys: [NEW, OLD] }, store)).toEqual({ reencrypted: 2, current: 0, unreadable: [], changed: [] });
    // Only the new key from now on: the records read under it alone.
    current = await startRelayHarness({
      config: { selfServe: true, encryptionKeys: [NEW], sourceBases: [first.emulator.url] },
      relay: { registrationStore: store },
    });
    for (const id of ids) {
      const served = await current.get(`?websiteId=${encodeURIComponent(id)}`);
      expect(served.status, answerText(served)).toBe(200);
    }
    const stored = JSON.stringify([...(await store.all())]);
    for (const secret of [...secretsOf(sources.umami), ...secretsOf(sources.ga4)])
      expect(stored).not.toContain(JSON.stringify(secret).slice(1, -1));
  });
});
