// @vitest-environment node
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { getJwt } from '@shopify/shopify-api/test-helpers';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorServer } from '../../emulator/src/index.js';
import { bundleWorker, captureOutput } from './runtimes/workerd-support.js';
import { fleetWorkers } from './support/fleet-workers.js';
import { CLIENT_ID, CLIENT_SECRET, SHOP } from './support/shopify-oracle.js';

/**
 * A Shopify session token spent on one isolate is spent for the fleet: two Workers in workerd
 * (Miniflare) bind one `RegistrationKeeper`, whose SQLite table remembers the jti. Tokens are signed
 * by @shopify/shopify-api's helper; the emulator is the service. Cloudflare itself was not run.
 */
const OWNER = { id: 'shop-owner', token: 'tokShop-SECRET-0042' } as const;
const KEY = `s1:${btoa('s'.repeat(32))}`;
const WORKER = fileURLToPath(new URL('./registry-durable-object-worker.ts', import.meta.url));
const names = ['relay-0', 'relay-1'];

let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;
let miniflare: Miniflare;
let urls: string[];
const stdio = captureOutput();

beforeAll(async () => {
  emulator = await startEmulatorServer({ port: 0, config: { websites: [{ ...OWNER, plan: 'enterprise' }] }, onError: () => undefined });
  const script = await bundleWorker(WORKER);
  const bindings = {
    LIVE_VISITORS_UPSTREAM: emulator.url,
    LIVE_VISITORS_SELF_SERVE: 'true',
    LIVE_VISITORS_ENCRYPTION_KEYS: KEY,
    LIVE_VISITORS_SHOPIFY_APP_SECRET: CLIENT_SECRET,
    LIVE_VISITORS_SHOPIFY_CLIENT_ID: CLIENT_ID,
  };
  const workers = fleetWorkers(names, script, bindings);
  miniflare = new Miniflare({ host: '127.0.0.1', port: 0, handleRuntimeStdio: stdio.handleRuntimeStdio, workers });
  await miniflare.ready;
  urls = await Promise.all(names.map(async (name) => (await miniflare.unsafeGetDirectURL(name)).origin));
}, 120_000);

afterAll(async () => {
  await miniflare?.dispose();
  await emulator?.close();
});

const sessionToken = async () =>
  `Bearer ${(await getJwt(SHOP.replace('.myshopify.com', ''), CLIENT_ID, CLIENT_SECRET, { jti: randomUUID() })).token}`;

async function save(url: string, authorization: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/shopify/app/settings`, {
    method: 'PUT',
    headers: { Authorization: authorization, 'Content-Type': 'application/json' },
    body: JSON.stringify({ websiteId: OWNER.id, token: OWNER.token }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('spent session tokens in a Durable Object', () => {
  it('a save replayed on another isolate is refused; a new token saves there', async () => {
    const token = await sessionToken();
    expect(await save(urls[0]!, token)).toMatchObject({ status: 200, body: { websiteId: OWNER.id, tokenEnding: '0042' } });
    expect(await save(urls[1]!, token)).toMatchObject({ status: 401, body: { code: 'session-token-spent' } });
    expect(await save(urls[0]!, token)).toMatchObject({ status: 401, body: { code: 'session-token-spent' } });
    expect(await save(urls[1]!, await sessionToken())).toMatchObject({ status: 200, body: { websiteId: OWNER.id } });
  });
});
