import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { type Answer, type RelayHarness, startRelayHarness } from './support/relay-harness.js';

/**
 * Checks with the services have their own relay-wide allowance (issue 35 §5): ten times
 * `registrationsPerHour` an hour, however many addresses ask, and none of the websites' serving
 * budget. With `registrationsPerHour` 1 the relay is under attack after one failure: each new
 * address is checked once, until the tenth check of the hour; the eleventh asks no one.
 */
const KEYS = [`k1:${btoa('a'.repeat(32))}`];
const OWNED = { id: 'not-relayed', token: 'tokC-SECRET-0000' } as const;

let harness: RelayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function putFrom(relay: RelayHarness, address: string, websiteId: string, token: string): Promise<Answer> {
  return relay.request(`/api/v1/websites/${websiteId}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'X-Test-Address': address },
  });
}

describe('the allowance of checks', () => {
  it('caps the requests to the service however many addresses try, with a 429 that says when, and spends no serving budget', async () => {
    harness = await startRelayHarness({
      config: { selfServe: true, encryptionKeys: KEYS, registrationsPerHour: 1, hourlyBudget: 1 },
      relay: {
        registrationStore: new MemoryRegistrationStore(),
        clientAddress: (request) => request.headers.get('x-test-address') ?? undefined,
      },
    });
    const relay = harness;
    const statuses: number[] = [];
    for (let address = 1; address <= 12; address += 1) {
      statuses.push((await putFrom(relay, `192.0.2.${address}`, `flood-${address}`, 'bad-token')).status);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    expect(relay.upstreamCalls).toHaveLength(10);

    const spent = await putFrom(relay, '203.0.113.10', OWNED.id, OWNED.token);
    expect(spent.status).toBe(429);
    expect((spent.json as { error: string }).error).toMatch(
      /made its 10 checks with the analytics services this hour; nothing was asked, try again in \d+ minutes?$/,
    );
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(3_000);
    expect(relay.upstreamCalls).toHaveLength(10);

    // An hour on, the allowance is back: ten checks spent none of the relay's one serving request.
    relay.clock.advance(60 * 60_000 + 1);
    expect((await putFrom(relay, '203.0.113.10', OWNED.id, OWNED.token)).status).toBe(201);
    relay.clock.advance(60_000);
    const served = await relay.get(`?websiteId=${OWNED.id}`);
    expect(served.status).toBe(200);
    expect(relay.upstreamCalls).toHaveLength(12);
  });
});
