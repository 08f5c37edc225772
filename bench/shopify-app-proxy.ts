// The relay's throughput with Shopify App Proxy signatures checked, against the same requests
// unchecked, in one run (the cost of one HMAC per request). In `npm run bench` and bench/relay-only.ts.

import { startEmulatorServer } from '../emulator/src/index.js';
import { startRelayServer } from '../relay/src/node.js';
import { signedProxyQuery } from '../relay/test/support/shopify-app-proxy-signing.js';
import { CONNECTIONS, DURATION_SECONDS, measureInTurns, ROUNDS } from './load-in-turns.js';
import { printTable, ratio } from './table.js';

const WEBSITE = { id: 'bench-shop', token: 'bench-token' } as const;
const SHOP = 'bench-shop.myshopify.com';
const SECRET = 'shpss_bench_0123456789abcdef';

export async function benchShopifyAppProxy(): Promise<void> {
  const emulator = await startEmulatorServer({ port: 0, config: { websites: [{ ...WEBSITE, plan: 'enterprise' }] } });
  const base = { upstream: emulator.url, interval: 3_600, maxStale: 3_600, hourlyBudget: 100_000 };
  // Off: no secret, the website is an ordinary one; On: the website is the shop's, every request verified.
  const off = await startRelayServer({ port: 0, config: { ...base, websites: [WEBSITE] }, log: () => undefined });
  const on = await startRelayServer({
    port: 0,
    config: { ...base, websites: [{ ...WEBSITE, shop: SHOP }], shopifyAppSecret: SECRET },
    log: () => undefined,
  });
  // Signed once: the whole run takes about 40 s, inside the 90 s a signature is accepted for.
  const proxied = signedProxyQuery({ websiteId: WEBSITE.id, shop: SHOP, secret: SECRET, timestampSeconds: Math.floor(Date.now() / 1000) });
  const targets = [
    { server: 'plain request, no App Proxy (the widget without Shopify)', url: `${off.url}/api/v1/realtime?websiteId=${WEBSITE.id}` },
    { server: "App Proxy's request, signature not checked (off)", url: `${off.url}/api/v1/realtime${proxied}` },
    { server: "App Proxy's request, signature checked (on)", url: `${on.url}/api/v1/realtime${proxied}` },
  ];
  try {
    for (const target of targets) {
      const answer = await fetch(target.url);
      if (answer.status !== 200) throw new Error(`${target.server}: ${answer.status} ${await answer.text()}`);
    }
    const median = await measureInTurns(targets.map((target) => target.url));
    const anchor = median[1]!;
    printTable(
      `Relay behind Shopify's App Proxy on loopback: autocannon, ${CONNECTIONS} connections, the median of ${ROUNDS} runs of ${DURATION_SECONDS} s ` +
        'per row taken in turns, cached answer. Ratios against the same App Proxy request with the signature not checked',
      targets.map((target, index) => ({
        server: target.server,
        'requests/s': Math.round(median[index]!.requestsPerSecond).toLocaleString('en-US'),
        ratio: ratio(median[index]!.requestsPerSecond, anchor.requestsPerSecond),
        p50: `${median[index]!.p50Ms} ms`,
        p99: `${median[index]!.p99Ms} ms`,
        failures: median[index]!.failures,
      })),
    );
  } finally {
    await Promise.all([off.close(), on.close()]);
    await emulator.close();
  }
}
