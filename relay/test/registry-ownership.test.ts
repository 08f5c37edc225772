// @vitest-environment node
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startEmulatorServer } from '../../emulator/src/index.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import {
  type Backend,
  openStore,
  type RegistrantServer,
  type ServedRelay,
  SQUATTED_COUNT,
  serveRelay,
  squattedRecord,
  startRegistrantServer,
} from './support/registrant-server.js';

/**
 * A website ID belongs to whoever proves the site it names (issue 35 §2, finding 2), against the
 * relay served over HTTP on a real Redis and on the file store: a registrant with a "Fathom" of its
 * own on loopback, which accepts any key, can neither take `small-shop` nor block or remove its
 * owner, and the owner's token goes to the contract's service (the emulator) and nowhere else,
 * also when a record a registrant left under `small-shop` before this change is still stored.
 */
const OWNER = { id: 'small-shop', token: 'tokSmall-SECRET-0001' } as const;
const NEIGHBOUR = { id: 'other-shop', token: 'tokOther-SECRET-0002' } as const;
const KEY = `own:${btoa('o'.repeat(32))}`;
const OWNER_ADDRESS = '203.0.113.10';
const REGISTRANT_ADDRESS = '198.51.100.66';

let redis: RedisServer;
let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
let registrant: RegistrantServer;
let folder: string;
let relays = 0;

beforeAll(async () => {
  [redis, emulator, registrant, folder] = await Promise.all([
    startRedisServer(),
    startEmulatorServer({
      port: 0,
      config: { websites: [OWNER, NEIGHBOUR].map((website) => ({ ...website, plan: 'enterprise' as const })) },
      onError: () => undefined,
    }),
    startRegistrantServer(),
    mkdtemp(join(tmpdir(), 'relay-ownership-')),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([redis?.close(), emulator?.close(), registrant?.close(), folder && rm(folder, { recursive: true, force: true })]);
});

/** The registrant's own Fathom source for a site it names `site`. */
const squatterSource = (site: string) => ({ kind: 'fathom', base: registrant.base, siteId: site, apiKey: 'squatter-key-0001' });

/** A fresh relay on `backend`, with `squatted` stored under the owner's ID first when given. */
async function relayOn(backend: Backend, squatted = false): Promise<ServedRelay> {
  relays += 1;
  const where = { redisUrl: redis.url, folder, name: `ownership-${relays}` };
  if (squatted) {
    const store = await openStore(backend, where);
    await store.put(await squattedRecord(OWNER.id, squatterSource(OWNER.id), KEY), null);
    await store.close();
  }
  // The registrant's server listed as the operator might list a shop's own Matomo: ownership must hold even then.
  const relay = await serveRelay(backend, where, {
    upstream: emulator.url,
    encryptionKeys: [KEY],
    sourceBases: [new URL(registrant.base).origin],
  });
  onTestFinished(() => relay.close());
  return relay;
}

function registerWithToken(relay: ServedRelay, website: { id: string; token: string }, from = OWNER_ADDRESS): Promise<Response> {
  return relay.request(`/api/v1/websites/${website.id}`, { method: 'PUT', from, headers: { Authorization: `Bearer ${website.token}` } });
}

async function countOf(relay: ServedRelay, websiteId: string): Promise<{ status: number; visitors?: number }> {
  const answer = await relay.request(`/api/v1/realtime?websiteId=${encodeURIComponent(websiteId)}`);
  const json = (await answer.json()) as { currentVisitors?: number };
  return { status: answer.status, visitors: json.currentVisitors };
}

async function errorOf(answer: Response): Promise<string> {
  return ((await answer.json()) as { error: string }).error;
}

/** Requests the registrant's server got that carried the owner's token, in any form. */
const ownerTokenSeen = () => registrant.received.filter(({ authorization }) => authorization?.includes(OWNER.token));

describe.each(['redis', 'file'] as const)('on the %s store', (backend) => {
  it("refuses a source under another's website ID with 400, before any request; the owner then registers it with its token", async () => {
    const relay = await relayOn(backend);
    const before = registrant.received.length;
    const taken = await relay.request(`/api/v1/websites/${OWNER.id}`, {
      method: 'PUT',
      from: REGISTRANT_ADDRESS,
      body: JSON.stringify({ source: squatterSource(OWNER.id) }),
    });
    expect(taken.status).toBe(400);
    expect(await errorOf(taken)).toMatch(/This source's website ID is "fathom:127\.0\.0\.1:\d+\/fathom\/small-shop".*not "small-shop"/);
    expect(registrant.received).toHaveLength(before);
    expect((await countOf(relay, OWNER.id)).status).toBe(404);

    // Its own source registers under the ID that names it, and only there.
    const own = await relay.request('/api/v1/websites', {
      method: 'POST',
      from: REGISTRANT_ADDRESS,
      body: JSON.stringify({ source: squatterSource(OWNER.id) }),
    });
    expect(own.status).toBe(201);
    const ownId = ((await own.json()) as { websiteId: string }).websiteId;
    expect(ownId).toMatch(/^fathom:127\.0\.0\.1:\d+\/fathom\/small-shop$/);
    expect(await countOf(relay, ownId)).toEqual({ status: 200, visitors: SQUATTED_COUNT });

    expect((await registerWithToken(relay, OWNER)).status).toBe(201);
    const served = await countOf(relay, OWNER.id);
    expect(served.status).toBe(200);
    expect(served.visitors).not.toBe(SQUATTED_COUNT);
    expect(ownerTokenSeen()).toEqual([]);
  });

  it("replaces a record a registrant left under the owner's ID once the owner's token proves it, and logs it", async () => {
    const relay = await relayOn(backend, true);
    expect((await registerWithToken(relay, NEIGHBOUR)).status).toBe(201);
    // Stored before IDs named their proof: served as it was until its owner comes.
    expect(await countOf(relay, OWNER.id)).toEqual({ status: 200, visitors: SQUATTED_COUNT });

    const replaced = await registerWithToken(relay, OWNER);
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toEqual({ websiteId: OWNER.id, allowOrigins: null });
    const served = await countOf(relay, OWNER.id);
    expect(served.status).toBe(200);
    expect(served.visitors).not.toBe(SQUATTED_COUNT);
    expect(ownerTokenSeen()).toEqual([]);
    expect(relay.logs.join('\n')).toMatch(/"small-shop" was held by a fathom site "small-shop" its ID does not name; replaced/);
    expect((await countOf(relay, NEIGHBOUR.id)).status).toBe(200);
  });

  it("removes such a record with the owner's token, which goes to the contract's service and never to the registrant's server", async () => {
    const relay = await relayOn(backend, true);
    const before = registrant.received.length;
    const removed = await relay.request(`/api/v1/websites/${OWNER.id}`, {
      method: 'DELETE',
      from: OWNER_ADDRESS,
      headers: { Authorization: `Bearer ${OWNER.token}` },
    });
    expect(removed.status).toBe(204);
    expect(registrant.received).toHaveLength(before);
    expect(ownerTokenSeen()).toEqual([]);
    expect((await countOf(relay, OWNER.id)).status).toBe(404);
  });

  it("lets no registrant remove or take over the owner's registration, and sends its keys only where the ID says", async () => {
    const relay = await relayOn(backend);
    expect((await registerWithToken(relay, OWNER)).status).toBe(201);
    const before = registrant.received.length;
    const asRegistrant = (init: RequestInit) => relay.request(`/api/v1/websites/${OWNER.id}`, { ...init, from: REGISTRANT_ADDRESS });

    // Its own source is no proof for small-shop: no request to it, 401.
    const withSource = await asRegistrant({ method: 'DELETE', body: JSON.stringify({ source: squatterSource(OWNER.id) }) });
    expect(withSource.status).toBe(401);
    // Its key as a Bearer goes to the contract's service, which refuses it.
    const withKey = await asRegistrant({ method: 'DELETE', headers: { Authorization: 'Bearer squatter-key-0001' } });
    expect(withKey.status).toBe(401);
    expect(await errorOf(withKey)).toMatch(/refused this token for this website: copy the API token again/);
    const over = await asRegistrant({ method: 'PUT', body: JSON.stringify({ source: squatterSource(OWNER.id) }) });
    expect(over.status).toBe(400);
    expect(registrant.received).toHaveLength(before);
    const served = await countOf(relay, OWNER.id);
    expect(served.status).toBe(200);
    expect(served.visitors).not.toBe(SQUATTED_COUNT);
  });

  it('lets a registrant remove the record it left with its own stored key, without asking anyone', async () => {
    const relay = await relayOn(backend, true);
    const before = registrant.received.length;
    const removed = await relay.request(`/api/v1/websites/${OWNER.id}`, {
      method: 'DELETE',
      from: REGISTRANT_ADDRESS,
      headers: { Authorization: 'Bearer squatter-key-0001' },
    });
    expect(removed.status).toBe(204);
    expect(registrant.received).toHaveLength(before);
  });
});
