import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holds } from '../../test/support/properties.js';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { createRelay } from '../src/relay.js';

/**
 * Issue 35 finding 1, for any input: a registrant's `base` (Plausible's, Matomo's) or GA4 key's
 * `token_uri` is either refused before any request, or every request the relay then sends goes to
 * a service's public API or an origin the operator listed. The relay's fetch here only records:
 * nothing connects anywhere.
 */

const LISTED = 'http://127.0.0.1:8080';
const PUBLIC_ORIGINS = [
  'https://plausible.io',
  'https://api.umami.is',
  'https://api.usefathom.com',
  'https://analyticsdata.googleapis.com',
  'https://oauth2.googleapis.com',
];
const PRIVATE_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

function isWithinPolicy(url: string): boolean {
  const { origin, protocol, port, hostname } = new URL(url);
  return (
    origin === LISTED ||
    PUBLIC_ORIGINS.includes(origin) ||
    (protocol === 'https:' && port === '' && /^[a-z0-9-]+\.matomo\.cloud$/.test(hostname))
  );
}

/** Strings near the policy's edges as well as any at all. */
const anyAddress = fc.oneof(
  fc.string(),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    LISTED,
    `${LISTED}/matomo`,
    'http://127.0.0.1:8081',
    'http://127.1:8080',
    'http://2130706433:8080',
    'http://localhost:8080',
    'http://[::1]:8080',
    'https://plausible.io',
    'https://plausible.io.evil.example',
    'https://plausible.io:8443',
    'https://shop.matomo.cloud',
    'https://shop.matomo.cloud.evil.example',
    'http://shop.matomo.cloud',
    'https://oauth2.googleapis.com/token',
    'https://user:pw@plausible.io',
    'https://169.254.169.254',
  ),
  fc
    .tuple(fc.constantFrom('http://', 'https://', 'HTTPS://', ''), fc.domain(), fc.constantFrom('', ':8080', ':443', '/api', '/..'))
    .map((parts) => parts.join('')),
);

function relayRecording() {
  const sent: string[] = [];
  const relay = createRelay({
    config: {
      upstream: 'https://analytics.example',
      websites: [],
      selfServe: true,
      encryptionKeys: [`k1:${btoa('a'.repeat(32))}`],
      registrationsPerHour: 100_000,
      sourceBases: [LISTED],
    },
    registrationStore: new MemoryRegistrationStore(),
    clientAddress: () => '127.0.0.1',
    log: () => {},
    fetch: async (url) => {
      sent.push(url);
      // Any answer: what matters is where the requests went.
      return new Response('7', { status: 200, headers: { 'Content-Type': 'application/json' } });
    },
  });
  return { relay, sent };
}

describe('any address a registrant names', () => {
  const { relay, sent } = relayRecording();

  async function registering(source: Record<string, unknown>): Promise<number> {
    const before = sent.length;
    const answer = await relay(new Request('http://relay.test/api/v1/websites', { method: 'POST', body: JSON.stringify({ source }) }));
    const asked = sent.slice(before);
    if (answer.status === 400) expect(asked).toEqual([]);
    for (const url of asked) expect(isWithinPolicy(url), url).toBe(true);
    return answer.status;
  }

  it('as a base: refused before any request, or asked only within the policy', async () => {
    const statuses = new Set<number>();
    await holds(
      fc.asyncProperty(anyAddress, fc.constantFrom('plausible', 'matomo'), async (base, kind) => {
        const source =
          kind === 'plausible'
            ? { kind, base, siteId: 'shop.example', apiKey: 'plausible-key-0000' }
            : { kind, base, siteId: 1, tokenAuth: 'matomo-token-0000' };
        statuses.add(await registering(source));
      }),
      300,
    );
    // Both outcomes were met: the property did not hold by refusing everything.
    expect(statuses.has(400)).toBe(true);
    expect([...statuses].some((status) => status !== 400)).toBe(true);
  });

  it("as a GA4 key's token_uri: refused before any request, or asked only within the policy", async () => {
    const statuses = new Set<number>();
    await holds(
      fc.asyncProperty(anyAddress, async (tokenUri) => {
        const credentials = {
          type: 'service_account',
          client_email: 'relay@project.iam.gserviceaccount.com',
          private_key: PRIVATE_KEY,
          token_uri: tokenUri,
        };
        statuses.add(await registering({ kind: 'ga4', propertyId: '123456789', credentials }));
      }),
      200,
    );
    expect(statuses.has(400)).toBe(true);
    expect([...statuses].some((status) => status !== 400)).toBe(true);
  });
});
