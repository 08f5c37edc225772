// @vitest-environment node
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EmulatorServer } from '../../emulator/src/index.js';
import { startContractEmulator } from './runtimes/contract-checks.js';
import { ensureRelayBuilt } from './runtimes/runtime-support.js';
import { captureOutput, templateWorker } from './runtimes/workerd-support.js';
import { signedProxyQuery } from './support/shopify-app-proxy-signing.js';

// The Worker template as `wrangler dev` runs it (workerd, through Miniflare), with the App Proxy's
// secret as `wrangler secret put LIVE_VISITORS_SHOPIFY_APP_SECRET` would give it: the signature is
// checked by workerd's own Web Crypto, against the real clock.
const SECRET = 'shpss_worker_0123456789abcdef';
const SHOP = { id: 'shop-a', token: 'tokA-SECRET-7f3a9c', shop: 'shop-a.myshopify.com' };
const ORDINARY = { id: 'shop-b', token: 'tokB+SECRET/4d2e==' };

let emulator: EmulatorServer;
let miniflare: Miniflare;
let url: string;
const output = captureOutput();
const served = () => emulator.emulator.stats().trackedRateLimitRequests;

beforeAll(async () => {
  await ensureRelayBuilt();
  emulator = await startContractEmulator();
  miniflare = new Miniflare({
    ...(await templateWorker({
      LIVE_VISITORS_UPSTREAM: emulator.url,
      LIVE_VISITORS_WEBSITES: JSON.stringify([SHOP, ORDINARY]),
      LIVE_VISITORS_SHOPIFY_APP_SECRET: SECRET,
      LIVE_VISITORS_ALLOW_ORIGINS: '',
      LIVE_VISITORS_HOURLY_BUDGET: '1000',
    })),
    host: '127.0.0.1',
    port: 0,
    handleRuntimeStdio: output.handleRuntimeStdio,
  });
  url = (await miniflare.ready).origin;
}, 150_000);

afterAll(async () => {
  await miniflare?.dispose();
  await emulator?.close();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);
const signed = (overrides: { shop?: string; secret?: string; timestampSeconds?: number; websiteId?: string } = {}) =>
  signedProxyQuery({ websiteId: SHOP.id, shop: SHOP.shop, secret: SECRET, timestampSeconds: nowSeconds(), ...overrides });

async function get(query: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/api/v1/realtime${query}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

it('refuses unsigned, forged, stale and other-shop requests with 401 and asks the service nothing', async () => {
  const refusals = [
    await get(`?websiteId=${SHOP.id}`),
    await get(signed({ secret: 'another-secret' })),
    await get(signed().replace(/signature=\w+/, `signature=${'0'.repeat(64)}`)),
    await get(signed({ timestampSeconds: nowSeconds() - 600 })),
    await get(signed({ websiteId: ORDINARY.id })),
  ];
  expect(refusals.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401]);
  expect(refusals.map((answer) => String(answer.body.error).split(':')[0])).toEqual([
    'Unsigned request',
    'Invalid App Proxy signature',
    'Invalid App Proxy signature',
    'Stale App Proxy request',
    'The shop shop-a.myshopify.com may read only its own website',
  ]);
  expect((await get(signed({ shop: 'shop-z.myshopify.com' }))).status).toBe(404);
  expect(served()).toBe(0);
});

it("serves the shop's count to a request its App Proxy signed", async () => {
  const answer = await get(signed());
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ websiteId: SHOP.id, currentVisitors: emulator.emulator.currentVisitors(SHOP.id) });
  expect(served()).toBe(1);
  expect(output.output()).not.toContain(SECRET);
});
