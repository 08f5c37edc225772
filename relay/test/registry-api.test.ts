import { afterEach, describe, expect, it } from 'vitest';
import { RelayConfigError } from '../src/config.js';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { MAX_REGISTRATION_BODY_BYTES } from '../src/registry/registration-api.js';
import { createRelay } from '../src/relay.js';
import { defaultRelayConfig, OTHER_SHOP, type RelayHarness, SHOP, startRelayHarness } from './support/relay-harness.js';

// The emulator (the service's stand-in, as in every relay test) knows this website; the relay's config does not.
const OWNED = { id: 'not-relayed', token: 'tokC-SECRET-0000' } as const;
export const TEST_KEYS = [`k2:${btoa('b'.repeat(32))}`, `k1:${btoa('a'.repeat(32))}`];

interface Setup {
  readonly harness: RelayHarness;
  readonly store: MemoryRegistrationStore;
}

let current: RelayHarness | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function selfServing(config: Record<string, unknown> = {}, store = new MemoryRegistrationStore()): Promise<Setup> {
  current = await startRelayHarness({
    config: { selfServe: true, encryptionKeys: TEST_KEYS, ...config },
    relay: { registrationStore: store },
  });
  return { harness: current, store };
}

function put(harness: RelayHarness, id: string, token: string | null, body?: unknown, headers: Record<string, string> = {}) {
  return harness.request(`/api/v1/websites/${encodeURIComponent(id)}`, {
    method: 'PUT',
    headers: { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function remove(harness: RelayHarness, id: string, token: string) {
  return harness.request(`/api/v1/websites/${encodeURIComponent(id)}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
}

describe('registering a website', () => {
  it('creates it with one upstream request, serves it from that answer, and replaces it with 200', async () => {
    const { harness, store } = await selfServing();
    expect((await harness.get(`?websiteId=${OWNED.id}`)).status).toBe(404);
    expect(harness.upstreamCalls).toHaveLength(0);

    const created = await put(harness, OWNED.id, OWNED.token);
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ websiteId: OWNED.id, allowOrigins: null });
    expect(harness.upstreamCalls).toHaveLength(1);
    expect(harness.upstreamCalls[0]!.authorization).toBe(`Bearer ${OWNED.token}`);

    const served = await harness.get(`?websiteId=${OWNED.id}`);
    expect(served.status).toBe(200);
    expect(typeof (served.json as { currentVisitors: unknown }).currentVisitors).toBe('number');
    // The check's report is the first answer: the first shopper costs no second request.
    expect(harness.upstreamCalls).toHaveLength(1);

    const replaced = await put(harness, OWNED.id, OWNED.token, { allowOrigins: ['https://owner.example'] });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toEqual({ websiteId: OWNED.id, allowOrigins: ['https://owner.example'] });
    expect(await store.all()).toHaveProperty('size', 1);
  });

  it.each([
    ['a token the service refuses', OWNED.id, 'wrong-token-1234', 401],
    ['a website the service does not know', 'nobody-knows-it', OWNED.token, 404],
  ])('refuses %s with one upstream request and stores nothing', async (_name, id, token, status) => {
    const { harness, store } = await selfServing();
    const answer = await put(harness, id, token);
    expect(answer.status).toBe(status);
    expect(typeof (answer.json as { error: unknown }).error).toBe('string');
    expect(harness.upstreamCalls).toHaveLength(1);
    expect((await store.all()).size).toBe(0);
    expect((await harness.get(`?websiteId=${id}`)).status).toBe(404);
    expect(harness.upstreamCalls).toHaveLength(1);
  });

  it('answers 502 when the service fails and 504 when it does not answer in time, storing nothing', async () => {
    let mode: 'fail' | 'hang' = 'fail';
    current = await startRelayHarness({
      config: { selfServe: true, encryptionKeys: TEST_KEYS, registrationsMayBeLost: true },
      relay: {
        upstreamTimeoutMs: 200,
        fetch: (_input, init) =>
          mode === 'fail'
            ? Promise.resolve(new Response('{"error":"boom"}', { status: 500 }))
            : new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
      },
    });
    expect((await put(current, OWNED.id, OWNED.token)).status).toBe(502);
    mode = 'hang';
    expect((await put(current, OWNED.id, OWNED.token)).status).toBe(504);
    expect((await current.get(`?websiteId=${OWNED.id}`)).status).toBe(404);
  });

  it("refuses the config's own websites with 409 and never asks the service", async () => {
    const { harness } = await selfServing();
    expect((await put(harness, SHOP.id, SHOP.token)).status).toBe(409);
    expect((await remove(harness, OTHER_SHOP.id, OTHER_SHOP.token)).status).toBe(409);
    expect(harness.upstreamCalls).toHaveLength(0);
    expect((await harness.get(`?websiteId=${SHOP.id}`)).status).toBe(200);
  });

  it.each<[string, string | null, unknown, Record<string, string>, number]>([
    ['no Authorization header', null, undefined, {}, 401],
    ['a token of the wrong shape', 'two words', undefined, {}, 401],
    ['a token with a quote', 'tok"en', undefined, {}, 400],
    ['a body that is not JSON', OWNED.token, '{not json', {}, 400],
    ['a body that is not an object', OWNED.token, '[1]', {}, 400],
    ['an unknown field', OWNED.token, { allowOrigin: ['https://a.example'] }, {}, 400],
    ['origins with paths', OWNED.token, { allowOrigins: ['https://a.example/shop'] }, {}, 400],
    ['origins that are not a list', OWNED.token, { allowOrigins: 'https://a.example' }, {}, 400],
    ['an hourly budget of zero', OWNED.token, { hourlyBudget: 0 }, {}, 400],
    ['a body over the cap', OWNED.token, `{"allowOrigins":["${'x'.repeat(MAX_REGISTRATION_BODY_BYTES)}"]}`, {}, 413],
  ])('refuses %s with a clear JSON error, stores nothing, asks nobody', async (_name, token, body, headers, status) => {
    const { harness, store } = await selfServing();
    const answer = await put(harness, OWNED.id, token, body, headers);
    expect(answer.status).toBe(status);
    expect((answer.json as { error: string }).error.length).toBeGreaterThan(10);
    expect(answer.text).not.toContain(OWNED.token);
    expect(harness.upstreamCalls).toHaveLength(0);
    expect((await store.all()).size).toBe(0);
  });

  it('refuses other methods on a website path with 405 and a malformed path with 400', async () => {
    const { harness } = await selfServing();
    const post = await harness.request(`/api/v1/websites/${OWNED.id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${OWNED.token}` },
    });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('PUT, DELETE');
    expect((await harness.request('/api/v1/websites/a/b', { method: 'PUT' })).status).toBe(400);
    expect((await harness.request('/api/v1/websites/%E0%A4%A', { method: 'PUT' })).status).toBe(400);
  });
});

describe("a registered website's origins", () => {
  it("answer its GET and its preflight alike; the config's origins answer neither for it", async () => {
    const { harness } = await selfServing();
    expect((await put(harness, OWNED.id, OWNED.token, { allowOrigins: ['https://owner.example'] })).status).toBe(201);
    const query = `?websiteId=${OWNED.id}`;
    const preflight = (origin: string) =>
      harness.get(query, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' } });

    const ownersGet = await harness.get(query, { headers: { Origin: 'https://owner.example' } });
    expect(ownersGet.headers.get('access-control-allow-origin')).toBe('https://owner.example');
    const ownersPreflight = await preflight('https://owner.example');
    expect(ownersPreflight.status).toBe(204);
    expect(ownersPreflight.headers.get('access-control-allow-origin')).toBe('https://owner.example');

    // The config's origin is the config's websites', not this one's: refused both ways.
    const configs = 'https://shop.example';
    expect((await harness.get(query, { headers: { Origin: configs } })).headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight(configs)).status).toBe(403);
    // And for a website of the config, the config's origin still answers the preflight.
    expect((await harness.get(`?websiteId=${SHOP.id}`, { method: 'OPTIONS', headers: { Origin: configs } })).status).toBe(204);
  });
});

describe('removing a registration', () => {
  it('takes the stored token (no upstream request), then the website is unknown again without reaching the service', async () => {
    const { harness, store } = await selfServing();
    await put(harness, OWNED.id, OWNED.token);
    const calls = harness.upstreamCalls.length;
    expect((await remove(harness, OWNED.id, OWNED.token)).status).toBe(204);
    expect(harness.upstreamCalls).toHaveLength(calls);
    expect((await store.all()).size).toBe(0);
    harness.clock.advance(120_000);
    expect((await harness.get(`?websiteId=${OWNED.id}`)).status).toBe(404);
    expect(harness.upstreamCalls).toHaveLength(calls);
  });

  it('answers 401 to a token neither stored nor accepted by the service, 404 to an unknown website', async () => {
    const { harness, store } = await selfServing();
    await put(harness, OWNED.id, OWNED.token);
    expect((await remove(harness, OWNED.id, 'someone-elses-token')).status).toBe(401);
    expect((await store.all()).size).toBe(1);
    expect((await remove(harness, 'never-registered', OWNED.token)).status).toBe(404);
  });

  it('says which is malformed, the website ID or the token, and asks no one', async () => {
    const { harness } = await selfServing();
    const badId = await remove(harness, 'has space', OWNED.token);
    expect(badId.status).toBe(400);
    expect((badId.json as { error: string }).error).toMatch(/^The website ID must be/);
    const badToken = await remove(harness, OWNED.id, 'tok"quote');
    expect(badToken.status).toBe(400);
    expect((badToken.json as { error: string }).error).toMatch(/^The token must be/);
    expect(harness.upstreamCalls).toHaveLength(0);
  });
});

describe("a registered website's own settings", () => {
  it('lets only its own origins read it across origins', async () => {
    const { harness } = await selfServing();
    await put(harness, OWNED.id, OWNED.token, { allowOrigins: ['https://owner.example'] });
    const own = await harness.get(`?websiteId=${OWNED.id}`, { headers: { Origin: 'https://owner.example' } });
    expect(own.headers.get('access-control-allow-origin')).toBe('https://owner.example');
    const other = await harness.get(`?websiteId=${OWNED.id}`, { headers: { Origin: 'https://shop.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('asks any origin when none were given', async () => {
    const { harness } = await selfServing();
    await put(harness, OWNED.id, OWNED.token);
    const answer = await harness.get(`?websiteId=${OWNED.id}`, { headers: { Origin: 'https://anywhere.example' } });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('keeps to its own hourly budget while the relay has room', async () => {
    const { harness } = await selfServing({ hourlyBudget: 1_000, interval: 60, maxStale: 600 });
    await put(harness, OWNED.id, OWNED.token, { hourlyBudget: 3 });
    const afterCheck = harness.upstreamCalls.length;
    for (let minute = 1; minute <= 30; minute += 1) {
      harness.clock.advance(60_000);
      await harness.get(`?websiteId=${OWNED.id}`);
    }
    // The check is the relay's request; the website's own budget then allows 3 in the hour.
    expect(harness.upstreamCalls.length - afterCheck).toBe(3);
  });
});

describe('abuse limits', () => {
  it('limits attempts per client address (a tenth of registrationsPerHour) with 429 and Retry-After', async () => {
    const { harness } = await selfServing({ registrationsPerHour: 20 });
    expect((await put(harness, OWNED.id, 'bad-token-one')).status).toBe(401);
    expect((await put(harness, OWNED.id, 'bad-token-two')).status).toBe(401);
    const limited = await put(harness, OWNED.id, 'bad-token-three');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3_000);
    expect(harness.upstreamCalls).toHaveLength(2);
  });

  it('caps the registered websites at maxWebsites', async () => {
    const { harness } = await selfServing({ maxWebsites: 1 });
    expect((await put(harness, OWNED.id, OWNED.token)).status).toBe(201);
    // shop-a's token is valid at the service, but the relay is full (and shop-a is static anyway): use a fresh id.
    const full = await put(harness, 'another-one', OWNED.token);
    expect(full.status).toBe(429);
    expect((full.json as { error: string }).error).toMatch(/maximum of 1 websites/);
    expect(harness.upstreamCalls).toHaveLength(1);
  });
});

describe('the token of a registered website', () => {
  it('appears in no log line, answer or store record, even when the service echoes it in every encoding', async () => {
    const token = OWNED.token;
    const echo = `${token} ${encodeURIComponent(token)} ${btoa(`Bearer ${token}`)} ${Buffer.from(token).toString('hex')}`;
    let failing = false;
    const store = new MemoryRegistrationStore();
    current = await startRelayHarness({
      config: { selfServe: true, encryptionKeys: TEST_KEYS, registrationsMayBeLost: true },
      relay: {
        registrationStore: store,
        fetch: (input, init) =>
          failing ? Promise.resolve(new Response(JSON.stringify({ error: `bad: ${echo}` }), { status: 500 })) : fetch(input, init),
      },
    });
    expect((await put(current, OWNED.id, token)).status).toBe(201);
    failing = true;
    current.clock.advance(61_000);
    await current.get(`?websiteId=${OWNED.id}`);
    // A check that fails with the service's echo: refused, and logged without it.
    expect((await put(current, OWNED.id, token)).status).toBe(502);
    expect(current.logs.join('\n')).toMatch(/answered 500/);
    const everything = [
      current.logs.join('\n'),
      JSON.stringify([...(await store.all()).values()]),
      ...current.answers.map((answer) => answer.text),
    ].join('\n');
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(encodeURIComponent(token));
    expect(everything.toLowerCase()).not.toContain(Buffer.from(token).toString('hex'));
    expect(everything).not.toContain(btoa(`Bearer ${token}`).slice(8, 20));
  });
});

describe('a record that does not decrypt', () => {
  it('makes that website answer 502 with a log line, and every other website is unaffected', async () => {
    const store = new MemoryRegistrationStore();
    const { harness } = await selfServing({}, store);
    await put(harness, OWNED.id, OWNED.token);
    const record = (await store.get(OWNED.id)) as Record<string, unknown> & { token: Record<string, string> };
    // Tampered: one character of the ciphertext changed.
    const sealed = record.token.sealed!;
    await store.put(
      {
        ...record,
        savedAtMs: 1,
        token: { ...record.token, sealed: `${sealed[0] === 'A' ? 'B' : 'A'}${sealed.slice(1)}` },
      } as never,
      record as never,
    );
    harness.clock.advance(10_000);
    await harness.get(`?websiteId=${OWNED.id}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const broken = await harness.get(`?websiteId=${OWNED.id}`);
    expect(broken.status).toBe(502);
    expect((broken.json as { error: string }).error).toMatch(/cannot be read by the relay/);
    expect(harness.logs.join('\n')).toMatch(/token of "not-relayed" cannot be read/);
    expect((await harness.get(`?websiteId=${SHOP.id}`)).status).toBe(200);
  });
});

describe('a relay without selfServe', () => {
  it('has no owner page and no registration API: both are the usual 404, and nothing reaches the service', async () => {
    current = await startRelayHarness();
    expect((await current.request('/')).status).toBe(404);
    expect((await current.request('/owner.js')).status).toBe(404);
    expect((await put(current, OWNED.id, OWNED.token)).status).toBe(404);
    expect(current.upstreamCalls).toHaveLength(0);
  });
});

describe('where registrations are kept', () => {
  it('refuses memory with selfServe, saying why, unless the config says registrations may be lost', () => {
    const config = { ...defaultRelayConfig('https://analytics.example'), selfServe: true, encryptionKeys: TEST_KEYS };
    expect(() => createRelay({ config })).toThrow(RelayConfigError);
    expect(() => createRelay({ config })).toThrow(/registrationsMayBeLost/);
    expect(createRelay({ config: { ...config, registrationsMayBeLost: true } }).registrations).not.toBeNull();
  });
});

describe('a body that breaks off', () => {
  it('is refused with 400 and nothing stored, not read as no body (which would open a replacement to any origin)', async () => {
    const store = new MemoryRegistrationStore();
    let upstreamCalls = 0;
    const relay = createRelay({
      config: { upstream: 'https://analytics.example', selfServe: true, encryptionKeys: TEST_KEYS, registrationsMayBeLost: true },
      registrationStore: store,
      fetch: async () => {
        upstreamCalls += 1;
        return new Response('{}', { status: 500 });
      },
      log: () => {},
    });
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('connection dropped'));
      },
    });
    const answer = await relay(
      new Request(`http://relay.test/api/v1/websites/${OWNED.id}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${OWNED.token}` },
        body: broken,
        duplex: 'half',
      } as RequestInit),
    );
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: string }).error).toMatch(/could not be read/);
    expect(upstreamCalls).toBe(0);
    expect((await store.all()).size).toBe(0);
  });
});
