// @vitest-environment node
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleWorker } from './runtimes/workerd-support.js';
import { type StandInServer, sourcesFor, startStandIns } from './sources-stand-ins.js';

/**
 * The GA4 source on Cloudflare's runtime (workerd, through Miniflare): the service-account
 * assertion is signed with workerd's Web Crypto, the key comes from a secret named by
 * `{ "env": "GA4_KEY" }`, and the count from the GA4 stand-in on loopback. Not run: Cloudflare's
 * edge itself, and Google.
 */

let server: StandInServer;
let miniflare: Miniflare;
let url: string;

beforeAll(async () => {
  server = await startStandIns();
  server.clock.nowMs = Date.now();
  const { ga4 } = await sourcesFor(server);
  const { credentials, ...source } = ga4;
  miniflare = new Miniflare({
    modules: true,
    script: await bundleWorker(join(import.meta.dirname, 'sources-worker-entry.ts')),
    compatibilityDate: '2026-04-24',
    host: '127.0.0.1',
    port: 0,
    bindings: {
      LIVE_VISITORS_UPSTREAM: 'https://unused.example',
      LIVE_VISITORS_WEBSITES: JSON.stringify([{ id: 'my-shop', source: { ...source, credentials: { env: 'GA4_KEY' } } }]),
      GA4_KEY: JSON.stringify(credentials),
    },
  });
  url = (await miniflare.ready).origin;
});
afterAll(async () => {
  await miniflare?.dispose();
  await server?.close();
});

it('answers the GA4 count, its token fetched with an RS256 assertion signed in workerd', async () => {
  const tokens = server.standIns.state.tokenRequests;
  const response = await fetch(`${url}/api/v1/realtime?websiteId=my-shop`);
  expect([response.status, response.status === 200 ? '' : await response.clone().text()]).toEqual([200, '']);
  expect(await response.json()).toMatchObject({ currentVisitors: 23, websiteId: 'my-shop' });
  expect(server.standIns.state.tokenRequests - tokens).toBe(1);
});
