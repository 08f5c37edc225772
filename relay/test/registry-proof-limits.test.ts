// @vitest-environment node
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startEmulatorServer } from '../../emulator/src/index.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { type Backend, type ServedRelay, serveRelay } from './support/registrant-server.js';

/**
 * Every proof of ownership is limited, and a flood locks out nobody with a valid proof (issue 35
 * §5, findings 6 and 7), against the relay served over HTTP on a real Redis and on the file store,
 * the emulator as the contract's service and its stand-ins of Umami and GA4. Client addresses
 * come from a trusted proxy's `x-forwarded-for`, so one test can be many clients.
 */
const OWNER = { id: 'small-shop', token: 'tokSmall-SECRET-0001' } as const;
const NEIGHBOUR = { id: 'other-shop', token: 'tokOther-SECRET-0002' } as const;
const KEY = `lim:${btoa('l'.repeat(32))}`;
const OWNER_ADDRESS = '203.0.113.10';
/** The stand-in's documented first login of a self-hosted Umami. */
const UMAMI_LOGIN = { username: 'admin', password: 'umami' };

let redis: RedisServer;
let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
let folder: string;
let relays = 0;

beforeAll(async () => {
  [redis, emulator, folder] = await Promise.all([
    startRedisServer(),
    startEmulatorServer({
      port: 0,
      controls: true,
      config: { websites: [OWNER, NEIGHBOUR].map((website) => ({ ...website, plan: 'enterprise' as const })) },
      onError: () => undefined,
    }),
    mkdtemp(join(tmpdir(), 'relay-proof-limits-')),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([redis?.close(), emulator?.close(), folder && rm(folder, { recursive: true, force: true })]);
});

/** A fresh relay on `backend`: the default 60 failed proofs an hour (6 per client and per website ID), one upstream request an hour to serve with. */
async function relayOn(backend: Backend): Promise<ServedRelay> {
  relays += 1;
  const where = { redisUrl: redis.url, folder, name: `proof-limits-${relays}` };
  const relay = await serveRelay(backend, where, {
    upstream: emulator.url,
    encryptionKeys: [KEY],
    // The emulator stands for self-hosted Umami and for Google: listed as an operator lists a shop's own service.
    sourceBases: [new URL(emulator.url).origin],
    registrationsPerHour: 60,
    hourlyBudget: 1,
    interval: 1,
    maxStale: 60,
  });
  onTestFinished(() => relay.close());
  return relay;
}

function putWithToken(relay: ServedRelay, websiteId: string, token: string, from: string): Promise<Response> {
  return relay.request(`/api/v1/websites/${encodeURIComponent(websiteId)}`, {
    method: 'PUT',
    from,
    headers: { Authorization: `Bearer ${token}` },
  });
}

async function report(relay: ServedRelay, websiteId: string): Promise<{ status: number; timestamp?: string }> {
  const answer = await relay.request(`/api/v1/realtime?websiteId=${encodeURIComponent(websiteId)}`);
  return { status: answer.status, ...((await answer.json()) as { timestamp?: string }) };
}

describe.each(['redis', 'file'] as const)('on the %s store', (backend) => {
  it.each([
    ['on the owner’s website ID', () => OWNER.id],
    ['over ten website IDs', (address: number) => `flood-${address}`],
  ])(
    '10 addresses × 6 bad tokens %s leave the owner registering at once, and spend none of the serving budget',
    async (_, target) => {
      const relay = await relayOn(backend);
      expect((await putWithToken(relay, NEIGHBOUR.id, NEIGHBOUR.token, '203.0.113.20')).status).toBe(201);
      const statuses: number[] = [];
      for (let address = 0; address < 10; address += 1) {
        for (let attempt = 0; attempt < 6; attempt += 1) {
          const answer = await putWithToken(relay, target(address), `bad-token-${address}-${attempt}`, `192.0.2.${address + 1}`);
          await answer.arrayBuffer();
          statuses.push(answer.status);
        }
      }
      expect(new Set(statuses)).toEqual(new Set(statuses.includes(429) ? [401, 429] : [401]));
      expect((await report(relay, OWNER.id)).status).toBe(404);
      expect(relay.logs.join('\n')).toMatch(/failed proofs of ownership (for "small-shop"|on this relay) this hour/);

      // The owner, from an address of its own, at once: the flood's addresses are the ones that wait.
      const registered = await putWithToken(relay, OWNER.id, OWNER.token, OWNER_ADDRESS);
      expect(registered.status).toBe(201);
      const first = await report(relay, OWNER.id);
      expect(first.status).toBe(200);
      const again = await putWithToken(relay, OWNER.id, 'bad-token-again', '192.0.2.1');
      expect(again.status).toBe(429);
      expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(60);
      expect(((await again.json()) as { error: string }).error).toMatch(/failed proofs of ownership .*try again in \d+ minutes?$/);

      // The relay's one upstream request of the hour is still there to serve with: a fresh answer an interval on.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const fresh = await report(relay, OWNER.id);
      expect(fresh.status).toBe(200);
      expect(Date.parse(fresh.timestamp!)).toBeGreaterThan(Date.parse(first.timestamp!));
      expect((await report(relay, NEIGHBOUR.id)).status).toBe(200);
    },
    30_000,
  );

  it.each([
    [
      "a self-hosted Umami's login, with wrong passwords as a Bearer",
      'umami-login',
      (attempt: number) => `Bearer wrong-password-${attempt}`,
    ],
    ['a GA4 registration, with wrong keys as a Bearer', 'ga4', (attempt: number) => `Bearer wrong-key-${attempt}`],
  ])(
    'counts every DELETE of %s against the client: 429 after its share, a log line, and the owner still removes it',
    async (_, kind, authorization) => {
      const relay = await relayOn(backend);
      const pasted = (await (await fetch(`${emulator.url}/__emulator/sources/${OWNER.id}`)).json()) as Record<
        string,
        Record<string, unknown>
      >;
      const source =
        kind === 'umami-login' ? { kind: 'umami', base: pasted.umami!.base, websiteId: OWNER.id, ...UMAMI_LOGIN } : pasted.ga4!;
      const created = await relay.request('/api/v1/websites', { method: 'POST', from: OWNER_ADDRESS, body: JSON.stringify({ source }) });
      expect(created.status).toBe(201);
      const websiteId = ((await created.json()) as { websiteId: string }).websiteId;
      const path = `/api/v1/websites/${encodeURIComponent(websiteId)}`;

      const statuses: number[] = [];
      let last: Response | undefined;
      for (let attempt = 0; attempt < 20; attempt += 1) {
        last = await relay.request(path, { method: 'DELETE', from: '192.0.2.99', headers: { Authorization: authorization(attempt) } });
        statuses.push(last.status);
        if (attempt < 19) await last.arrayBuffer();
      }
      expect(statuses).toEqual([...Array(6).fill(401), ...Array(14).fill(429)]);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(60);
      expect(((await last!.json()) as { error: string }).error).toMatch(/from this address \(6 an hour\); try again in \d+ minutes?$/);
      expect(relay.logs.join('\n')).toContain('6 failed proofs of ownership from "192.0.2.99" this hour');
      expect((await report(relay, websiteId)).status).toBe(200);

      // The owner, from its own address, with the source as saved: removed at once.
      const removed = await relay.request(path, { method: 'DELETE', from: OWNER_ADDRESS, body: JSON.stringify({ source }) });
      expect(removed.status).toBe(204);
      expect((await report(relay, websiteId)).status).toBe(404);
    },
    30_000,
  );
});
