import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRelayConfig } from '../src/config.js';
import { relayConfigFromEnvironment } from '../src/environment-overrides.js';
import { MemoryStore } from '../src/store/memory-store.js';

/**
 * Issue 35 "what must hold" 6: the relay-wide `hourlyBudget` of a self-serving relay fits hosting.
 * The example of docs/relay.md "Hosting a relay for many shops", as written there, must let 1,000
 * registered websites each be asked once per interval for a whole hour, not one Free plan's 100.
 */

function hostingExample(): Record<string, unknown> {
  const docs = readFileSync('docs/relay.md', 'utf8');
  const section = docs.slice(docs.indexOf('## Hosting a relay for many shops'));
  const json = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (json === undefined) throw new Error('docs/relay.md has no example config under "Hosting a relay for many shops"');
  // The example's key is a placeholder: a key of its shape in its place.
  return JSON.parse(json.replace('<44 characters of base64>', btoa('a'.repeat(32)))) as Record<string, unknown>;
}

describe("a self-serving relay's hourly budget", () => {
  it("lets the hosting example's 1,000 websites each be asked once per interval, an hour long, through the budget the relay takes", async () => {
    const config = parseRelayConfig(hostingExample());
    expect(config.maxWebsites).toBe(1_000);
    const store = new MemoryStore();
    let refused = 0;
    for (let atMs = 0; atMs < 3_600_000; atMs += config.interval * 1000) {
      for (let website = 0; website < config.maxWebsites; website += 1) {
        if (!(await store.takeBudget(atMs, config.hourlyBudget)).taken) refused += 1;
      }
    }
    expect(refused).toBe(0);
  });

  it.each([
    [{}, 1_000 * 60],
    [{ interval: 30, maxStale: 60 }, 1_000 * 120],
    [{ maxWebsites: 10, websites: [{ id: 'own', token: 'tok-0000' }] }, 11 * 60],
    [{ maxWebsites: 1_000_000 }, 1_000_000],
    [{ hourlyBudget: 500 }, 500],
  ])('with %o it is %i by default, and what the operator writes when written', (fields, expected) => {
    const config = parseRelayConfig({
      upstream: 'https://analytics.example',
      selfServe: true,
      encryptionKeys: [`k1:${btoa('a'.repeat(32))}`],
      registrationsMayBeLost: true,
      ...fields,
    });
    expect(config.hourlyBudget).toBe(expected);
    // Parsing a parsed config again gives an equal one.
    expect(parseRelayConfig(config).hourlyBudget).toBe(expected);
  });

  it('stays one Free plan without selfServe, and follows the environment', () => {
    expect(parseRelayConfig({ upstream: 'https://analytics.example', websites: [{ id: 'own', token: 'tok-0000' }] }).hourlyBudget).toBe(
      100,
    );
    const fromEnvironment = relayConfigFromEnvironment({
      LIVE_VISITORS_UPSTREAM: 'https://analytics.example',
      LIVE_VISITORS_SELF_SERVE: 'true',
      LIVE_VISITORS_ENCRYPTION_KEYS: `k1:${btoa('a'.repeat(32))}`,
      LIVE_VISITORS_REGISTRATIONS_MAY_BE_LOST: 'true',
    });
    expect(fromEnvironment.hourlyBudget).toBe(60_000);
  });
});
