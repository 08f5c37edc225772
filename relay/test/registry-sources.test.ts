import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { rotateKeys } from '../src/registry/rotate-keys.js';
import { type Answer, answerText, type RelayHarness, startRelayHarness } from './support/relay-harness.js';

// Registering a website whose count comes from Plausible, Umami, Matomo, GA4 or Fathom (issue 32 §5),
// against the emulator's stand-ins of those services (emulator/src/sources), written from each
// service's published contract: the real services are not reachable here and were not asked.

/** The emulator knows this site; the relay's config does not. The relay's own id for it is another name. */
const SITE = 'not-relayed';
const RELAY_ID = 'my-shop';
const TEST_KEYS = [`k1:${btoa('a'.repeat(32))}`];
type Kind = 'plausible' | 'umami' | 'matomo' | 'ga4' | 'fathom';
const KINDS: readonly Kind[] = ['plausible', 'umami', 'matomo', 'ga4', 'fathom'];

let current: RelayHarness | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function selfServing(): Promise<{
  harness: RelayHarness;
  store: MemoryRegistrationStore;
  sources: Record<Kind, Record<string, unknown>>;
}> {
  const store = new MemoryRegistrationStore();
  current = await startRelayHarness({ config: { selfServe: true, encryptionKeys: TEST_KEYS }, relay: { registrationStore: store } });
  const sources = (await (await fetch(`${current.emulator.url}/__emulator/sources/${SITE}`)).json()) as Record<
    Kind,
    Record<string, unknown>
  >;
  return { harness: current, store, sources };
}

function put(harness: RelayHarness, id: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return harness.request(`/api/v1/websites/${encodeURIComponent(id)}`, { method: 'PUT', headers, body: JSON.stringify(body) });
}

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
    const created = await put(harness, RELAY_ID, { source });
    expect(created.status, answerText(created)).toBe(201);
    const shown = (created.json as { source: Record<string, unknown> }).source;
    expect(shown.kind).toBe(kind);
    expect(shown.base).toBe(source.base);
    for (const field of ['apiKey', 'tokenAuth', 'password', 'credentials']) expect(shown).not.toHaveProperty(field);
    const asked = harness.upstreamCalls.length;
    expect(asked).toBeGreaterThanOrEqual(1);

    const served = await harness.get(`?websiteId=${RELAY_ID}`);
    expect(served.status).toBe(200);
    const report = served.json as { currentVisitors: number; websiteId: string; windowMinutes?: number };
    expect(report.websiteId).toBe(RELAY_ID);
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
    const answer = await put(harness, RELAY_ID, { source: { ...sources.plausible, apiKey: { env: 'PATH' } } });
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
    const answer = await put(harness, RELAY_ID, { source });
    expect(answer.status).toBe(400);
    expect((answer.json as { error: string }).error).toMatch(message);
    expect(answerText(answer)).not.toContain('pw@');
    expect(harness.upstreamCalls).toHaveLength(0);
    expect((await store.all()).size).toBe(0);
  });

  it('refuses a key the service refuses (401) and a site it does not know (404), storing nothing', async () => {
    const { harness, store, sources } = await selfServing();
    const wrongKey = await put(harness, RELAY_ID, { source: { ...sources.plausible, apiKey: 'not-the-key-1234' } });
    expect(wrongKey.status).toBe(401);
    expect((wrongKey.json as { error: string }).error).toMatch(/plausible refused this key for the plausible site "not-relayed"/);
    expect(answerText(wrongKey)).not.toContain('not-the-key-1234');
    // Fathom says 404 for a site it does not know (Plausible and Umami say 401, as the key cannot read it).
    const unknownSite = await put(harness, RELAY_ID, { source: { ...sources.fathom, siteId: 'nobody.example' } });
    expect(unknownSite.status).toBe(404);
    expect((unknownSite.json as { error: string }).error).toMatch(/fathom does not know the fathom site "nobody.example"/);
    expect((await store.all()).size).toBe(0);
    expect((await harness.get(`?websiteId=${RELAY_ID}`)).status).toBe(404);
  });

  it('is replaced only through the same site: another site or a token is refused with 409', async () => {
    const { harness, sources } = await selfServing();
    expect((await put(harness, RELAY_ID, { source: sources.plausible })).status).toBe(201);
    expect((await put(harness, RELAY_ID, { source: sources.plausible, allowOrigins: ['https://shop.example'] })).status).toBe(200);
    // A stranger holding a key for another site (here Fathom's) cannot take the registration over.
    const otherSite = await put(harness, RELAY_ID, { source: sources.fathom });
    expect(otherSite.status).toBe(409);
    expect((otherSite.json as { error: string }).error).toMatch(/registered for plausible site "not-relayed": remove it first/);
    const byToken = await put(harness, RELAY_ID, {}, { Authorization: 'Bearer tokC-SECRET-0000' });
    expect(byToken.status).toBe(409);
    expect((await harness.get(`?websiteId=${RELAY_ID}`)).status).toBe(200);
  });

  it('is removed with its stored key as a Bearer, and not with a wrong one', async () => {
    const { harness, store, sources } = await selfServing();
    expect((await put(harness, RELAY_ID, { source: sources.fathom })).status).toBe(201);
    const wrong = await remove(harness, RELAY_ID, { bearer: 'not-the-key-1234' });
    expect(wrong.status).toBe(401);
    expect((await store.all()).size).toBe(1);
    expect((await remove(harness, RELAY_ID, { bearer: sources.fathom.apiKey as string })).status).toBe(204);
    expect((await store.all()).size).toBe(0);
  });

  it('a GA4 registration, whose JSON key is no Bearer, is removed by sending its source again', async () => {
    const { harness, store, sources } = await selfServing();
    expect((await put(harness, RELAY_ID, { source: sources.ga4 })).status).toBe(201);
    expect((await remove(harness, RELAY_ID, { bearer: 'not-the-key-1234' })).status).toBe(401);
    expect((await remove(harness, RELAY_ID, { body: { source: { ...sources.ga4, propertyId: '2' } } })).status).toBe(401);
    expect((await remove(harness, RELAY_ID, { body: { source: sources.ga4 } })).status).toBe(204);
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
    for (const kind of ['umami', 'ga4'] as const) expect((await put(first, `rotated-${kind}`, { source: sources[kind] })).status).toBe(201);

    expect(await rotateKeys({ encryptionKeys: [NEW, OLD] }, store)).toEqual({ reencrypted: 2, current: 0, unreadable: [] });
    // Only the new key from now on: the records read under it alone.
    current = await startRelayHarness({
      config: { selfServe: true, encryptionKeys: [NEW], sourceBases: [first.emulator.url] },
      relay: { registrationStore: store },
    });
    for (const kind of ['umami', 'ga4'] as const) {
      const served = await current.get(`?websiteId=rotated-${kind}`);
      expect(served.status, answerText(served)).toBe(200);
    }
    const stored = JSON.stringify([...(await store.all())]);
    for (const secret of [...secretsOf(sources.umami), ...secretsOf(sources.ga4)])
      expect(stored).not.toContain(JSON.stringify(secret).slice(1, -1));
  });
});
