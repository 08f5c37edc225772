import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRelayConfig, RelayConfigError } from '../src/config.js';
import { relayConfigFromEnvironment } from '../src/environment-overrides.js';
import { holdsMetricsToken } from '../src/metrics/metrics-token.js';
import { MemoryRegistrationStore } from '../src/registry/memory-registration-store.js';
import { RedisStore } from '../src/store/redis-store.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { answerText, type HarnessOptions, leakedTokens, type RelayHarness, SHOP, startRelayHarness } from './support/relay-harness.js';

const METRICS_TOKEN = 'metrics-SECRET-5e1b7c2d9a';
const BEARER = { Authorization: `Bearer ${METRICS_TOKEN}` };
// Known to the service with this token, not in the relay's config: registered by its owner.
const OWNED = { id: 'not-relayed', token: 'tokC-SECRET-0000' } as const;
const KEYS = [`k1:${btoa('a'.repeat(32))}`];

let harness: RelayHarness | undefined;
let redis: RedisServer | undefined;
let store: RedisStore | undefined;
afterEach(async () => {
  await harness?.close();
  await store?.close();
  await redis?.close();
  harness = undefined;
  store = undefined;
  redis = undefined;
});

async function relayWith(config: Record<string, unknown>, relay: HarnessOptions['relay'] = {}) {
  harness = await startRelayHarness({ config, relay });
  return harness;
}

async function scrape(relay: RelayHarness): Promise<string> {
  const answer = await relay.request('/metrics', { headers: BEARER });
  expect(answer.status).toBe(200);
  return answer.text;
}

/** A counter's or gauge's value for exactly these labels, as the oracle parser reads it; undefined when absent. */
function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = parsePrometheusTextFormat(text).find((parsed) => parsed.name === name);
  const sample = family?.metrics.find((metric) => JSON.stringify(metric.labels ?? {}) === JSON.stringify(labels));
  return sample?.value === undefined ? undefined : Number(sample.value);
}

/** How many round trips the store histogram counted for one store and operation. */
function roundTrips(text: string, storeName: string, operation: string): number {
  const line = new RegExp(
    `^live_visitors_relay_store_round_trip_seconds_count\\{store="${storeName}",operation="${operation}"\\} (\\d+)$`,
    'm',
  );
  return Number(line.exec(text)?.[1] ?? 0);
}

describe('GET /healthz and GET /readyz', () => {
  it('answer 200 without any token, with no CORS headers and nothing cached', async () => {
    const relay = await relayWith({});
    for (const path of ['/healthz', '/readyz']) {
      const answer = await relay.request(path, { headers: { Origin: 'https://shop.example' } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    }
    expect((await relay.request('/healthz')).text).toBe('ok\n');
    expect((await relay.request('/readyz', { method: 'POST' })).status).toBe(405);
  });

  it('/readyz follows a real Redis store: 503 while it is down, 200 once it is back; /healthz stays 200', async () => {
    redis = await startRedisServer();
    store = await RedisStore.connect({ url: redis.url, prefix: 'readyz:', log: () => undefined });
    const relay = await relayWith({ store: redis.url, metricsToken: METRICS_TOKEN }, { store });
    expect((await relay.request('/readyz')).status).toBe(200);
    // The ping went through the timing wrapper to the real store (its private fields and all).
    expect(roundTrips(await scrape(relay), 'relay', 'ping')).toBe(1);
    await redis.stop();
    const down = await relay.request('/readyz');
    expect(down.status).toBe(503);
    expect(sampleValue(await scrape(relay), 'live_visitors_relay_store_failures_total', { store: 'relay', operation: 'ping' })).toBe(1);
    // The store's own words (its address) stay in the log.
    expect(down.text).not.toContain(String(redis.port));
    expect((await relay.request('/healthz')).status).toBe(200);
    await redis.start();
    await expect.poll(async () => (await relay.request('/readyz')).status, { timeout: 10_000 }).toBe(200);
  });
});

describe('GET /metrics', () => {
  it('is not there without metricsToken: 404, as any unknown path', async () => {
    const relay = await relayWith({});
    expect((await relay.request('/metrics', { headers: BEARER })).status).toBe(404);
  });

  it('answers only the bearer of metricsToken, never echoing a token', async () => {
    const relay = await relayWith({ metricsToken: METRICS_TOKEN });
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: 'Bearer wrong-token-of-some-length' },
      { Authorization: `Bearer ${METRICS_TOKEN}x` },
    ]) {
      const refused = await relay.request('/metrics', { headers });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    }
    await relay.get(`?websiteId=${SHOP.id}`);
    const answer = await relay.request('/metrics', { headers: BEARER });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(leakedTokens(answerText(answer), [METRICS_TOKEN, SHOP.token])).toEqual([]);
    expect((await relay.request('/metrics', { method: 'DELETE', headers: BEARER })).status).toBe(405);
  });

  it('counts websites, upstream outcomes and store round trips where they happen', async () => {
    const unknown = { id: 'unknown-to-service', token: 'tokZ-SECRET-9999' };
    const relay = await relayWith({ metricsToken: METRICS_TOKEN, websites: [SHOP, unknown] });
    const before = await scrape(relay);
    expect(sampleValue(before, 'live_visitors_relay_configured_websites')).toBe(2);
    expect(sampleValue(before, 'live_visitors_relay_served_websites')).toBe(0);
    expect(sampleValue(before, 'live_visitors_relay_upstream_requests_total', { outcome: 'report' })).toBeUndefined();

    expect((await relay.get(`?websiteId=${SHOP.id}`)).status).toBe(200);
    // Fresh: answered from memory, no second upstream request.
    expect((await relay.get(`?websiteId=${SHOP.id}`)).status).toBe(200);
    expect((await relay.get(`?websiteId=${unknown.id}`)).status).not.toBe(200);
    const after = await scrape(relay);
    expect(sampleValue(after, 'live_visitors_relay_upstream_requests_total', { outcome: 'report' })).toBe(1);
    const failures = parsePrometheusTextFormat(after)
      .find((family) => family.name === 'live_visitors_relay_upstream_requests_total')
      ?.metrics.filter((metric) => metric.labels?.outcome !== 'report');
    expect(failures).toHaveLength(1);
    expect(sampleValue(after, 'live_visitors_relay_served_websites')).toBe(2);
    // Each served website: its state read, claimed, the budget taken, the answer written.
    expect(roundTrips(after, 'relay', 'read')).toBeGreaterThanOrEqual(2);
    expect(roundTrips(after, 'relay', 'takeBudget')).toBe(2);
  });

  it("counts a refusal when the fleet's hourly budget is spent", async () => {
    const relay = await relayWith({ metricsToken: METRICS_TOKEN, hourlyBudget: 1 });
    expect((await relay.get(`?websiteId=${SHOP.id}`)).status).toBe(200);
    expect((await relay.get('?websiteId=shop-b')).status).not.toBe(200);
    const text = await scrape(relay);
    expect(sampleValue(text, 'live_visitors_relay_budget_refusals_total', { budget: 'fleet' })).toBe(1);
    expect(sampleValue(text, 'live_visitors_relay_upstream_requests_total', { outcome: 'report' })).toBe(1);
  });

  it('counts registration attempts by outcome, the registrations now known, and the registration store round trips', async () => {
    const relay = await relayWith(
      { metricsToken: METRICS_TOKEN, selfServe: true, encryptionKeys: KEYS },
      { registrationStore: new MemoryRegistrationStore() },
    );
    const put = (headers: Record<string, string>) => relay.request(`/api/v1/websites/${OWNED.id}`, { method: 'PUT', headers });
    expect((await put({})).status).toBe(401);
    expect((await put({ Authorization: `Bearer ${OWNED.token}` })).status).toBe(201);
    expect((await put({ Authorization: `Bearer ${OWNED.token}` })).status).toBe(200);
    const text = await scrape(relay);
    const attempts = (outcome: string, status: string) =>
      sampleValue(text, 'live_visitors_relay_registration_attempts_total', { method: 'PUT', outcome, status });
    expect([attempts('refused', '401'), attempts('created', '201'), attempts('replaced', '200')]).toEqual([1, 1, 1]);
    expect(sampleValue(text, 'live_visitors_relay_registered_websites')).toBe(1);
    expect(roundTrips(text, 'registrations', 'put')).toBe(2);
    // The check with the service is an upstream request too.
    expect(sampleValue(text, 'live_visitors_relay_upstream_requests_total', { outcome: 'report' })).toBe(2);
  });
});

describe('metricsToken in the config', () => {
  const base = { upstream: 'https://analytics.example', websites: [SHOP] };

  it('is a secret: not enumerable, so a config printed or logged never shows it', () => {
    const config = parseRelayConfig({ ...base, metricsToken: METRICS_TOKEN });
    expect(config.metricsToken).toBe(METRICS_TOKEN);
    expect(JSON.stringify(config)).not.toContain(METRICS_TOKEN);
    expect(Object.keys(config)).not.toContain('metricsToken');
    expect(parseRelayConfig(base).metricsToken).toBeNull();
  });

  it('is refused when short or with spaces, without being quoted', () => {
    for (const metricsToken of ['short-SECRET', 'has a space in it, SECRET', 42]) {
      const error = (() => {
        try {
          parseRelayConfig({ ...base, metricsToken });
        } catch (caught) {
          return caught as RelayConfigError;
        }
        throw new Error('accepted');
      })();
      expect(error).toBeInstanceOf(RelayConfigError);
      expect(error.message).toMatch(/metricsToken must be 16 to 256 printable characters/);
      expect(error.message).not.toContain('SECRET');
    }
  });

  it('comes from LIVE_VISITORS_METRICS_TOKEN, and a bad one names the variable', () => {
    const env = { LIVE_VISITORS_UPSTREAM: base.upstream, LIVE_VISITORS_WEBSITES: JSON.stringify([SHOP]) };
    expect(relayConfigFromEnvironment({ ...env, LIVE_VISITORS_METRICS_TOKEN: METRICS_TOKEN }).metricsToken).toBe(METRICS_TOKEN);
    expect(() => relayConfigFromEnvironment({ ...env, LIVE_VISITORS_METRICS_TOKEN: 'short' })).toThrow(
      /metricsToken \(from LIVE_VISITORS_METRICS_TOKEN\)/,
    );
  });
});

describe('holdsMetricsToken', () => {
  it.each([
    [`Bearer ${METRICS_TOKEN}`, true],
    [`bearer  ${METRICS_TOKEN} `, true],
    [null, false],
    ['', false],
    [METRICS_TOKEN, false],
    [`Basic ${METRICS_TOKEN}`, false],
    [`Bearer ${METRICS_TOKEN.slice(0, -1)}`, false],
    [`Bearer ${METRICS_TOKEN}0`, false],
    ['Bearer ', false],
  ])('%j holds it: %s', async (authorization, holds) => {
    expect(await holdsMetricsToken(authorization, METRICS_TOKEN)).toBe(holds);
  });
});
