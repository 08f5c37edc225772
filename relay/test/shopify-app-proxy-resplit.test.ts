// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppProxyVerifier } from '../src/shopify-app-proxy.js';
import { type RelayHarness, SHOP, startRelayHarness } from './support/relay-harness.js';
import { shopifySignature } from './support/shopify-app-proxy-signing.js';

/**
 * Issue 35 finding 11: Shopify signs its App Proxy query as `key=value` pairs sorted and joined
 * with nothing between them, so one signed text can be split into other parameters. A shopper of
 * shop A, adding a parameter of their own, gets a query signed for A whose text reads as a query
 * for shop C too; the relay must not serve C's website to it.
 */

const SECRET = 'shpss_0123456789abcdef0123456789abcdef';
const NOW_MS = Date.UTC(2026, 10, 26, 12, 0, 0);
const NOW_S = String(NOW_MS / 1000);
const ATTACKER = 'shop-a.myshopify.com';
const VICTIM = { id: 'not-relayed', token: 'tokC-SECRET-0000', shop: 'shop-c.myshopify.com' } as const;
const PREFIX = '/apps/live-visitors';

/** What Shopify forwards for shop A's storefront URL `?websiteId=not-relayed&{extra}`, with its signature. */
function signedForAttacker(extra: readonly [string, string]): string {
  const pairs: Array<[string, string]> = [
    ['websiteId', VICTIM.id],
    [...extra],
    ['shop', ATTACKER],
    ['logged_in_customer_id', ''],
    ['path_prefix', PREFIX],
    ['timestamp', NOW_S],
  ];
  return shopifySignature(pairs, SECRET);
}

/** The same signature on other parameters, whose signed text is the very same. */
function resplit(pairs: ReadonlyArray<readonly [string, string]>, signature: string): URLSearchParams {
  const query = new URLSearchParams(pairs.map(([key, value]) => [key, value]));
  query.append('signature', signature);
  return query;
}

const FORGERIES = [
  [
    "a parameter whose name holds '=' (the issue's case)",
    resplit(
      [
        ['websiteId', VICTIM.id],
        [`shop=${ATTACKER}shopx`, 'Y'],
        ['shop', VICTIM.shop],
        ['logged_in_customer_id', ''],
        ['path_prefix', PREFIX],
        ['timestamp', NOW_S],
      ],
      signedForAttacker(['shopx', `Yshop=${VICTIM.shop}`]),
    ),
    /name/,
  ],
  [
    "Shopify's own shop taken into path_prefix's value",
    resplit(
      [
        ['websiteId', VICTIM.id],
        ['logged_in_customer_id', ''],
        ['path_prefix', `${PREFIX}shop=${ATTACKER}shopa=x`],
        ['shop', VICTIM.shop],
        ['timestamp', NOW_S],
      ],
      signedForAttacker(['shopa', `xshop=${VICTIM.shop}`]),
    ),
    /shop/,
  ],
] as const;

describe('an App Proxy query re-split into a query for another shop', () => {
  let h: RelayHarness;
  beforeAll(async () => {
    h = await startRelayHarness({
      config: { websites: [{ ...SHOP, shop: ATTACKER }, VICTIM], shopifyAppSecret: SECRET },
      relay: { wallClock: () => NOW_MS },
    });
  });
  afterAll(() => h.close());

  it.each(FORGERIES)('%s: the signature still matches, and the relay refuses it with 401', async (_name, query, says) => {
    const verdict = await new AppProxyVerifier(SECRET, () => NOW_MS).verify(query);
    expect(verdict).toMatchObject({ signed: false, reason: 'forged', message: expect.stringMatching(says) });
    const before = h.upstreamCalls.length;
    const answer = await h.get(`?${query}`);
    expect(answer.status).toBe(401);
    expect((answer.json as { error: string }).error).toMatch(/^Invalid App Proxy request/);
    expect(h.upstreamCalls.length).toBe(before);
  });

  it("still serves the victim's website to its own shop's signed query", async () => {
    const pairs: Array<[string, string]> = [
      ['websiteId', VICTIM.id],
      ['shop', VICTIM.shop],
      ['logged_in_customer_id', ''],
      ['path_prefix', PREFIX],
      ['timestamp', NOW_S],
    ];
    const answer = await h.get(`?${resplit(pairs, shopifySignature(pairs, SECRET))}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ websiteId: VICTIM.id });
  });
});
