import { describe, expect, it } from 'vitest';
import rules from '../src/contract/rules.json' with { type: 'json' };

// src/contract/rules.json is read by the TypeScript (by key) and written into the WordPress plugin's generated PHP
// constants file (integrations/wordpress/build.ts): both need flat keys and plain values, and a key's name is its
// constant's name in PHP, so it must stay a camelCase word.

describe('the contract rules file', () => {
  it('is one flat object of plain numbers and strings, each key a camelCase name', () => {
    for (const [key, value] of Object.entries(rules)) {
      expect(key, key).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(['number', 'string'], key).toContain(typeof value);
      if (typeof value === 'number') expect(Number.isFinite(value), key).toBe(true);
    }
  });

  it('holds bounds that agree with each other', () => {
    expect(rules.maxBackoffMs).toBeLessThanOrEqual(rules.maxRateLimitWaitMs);
    expect(rules.relayMaxRetryAfterSeconds * 1000).toBeLessThanOrEqual(rules.dayCeilingMs);
    expect(rules.upstreamTimeoutMs + rules.browserWaitSlackMs).toBeLessThan(rules.elementRequestTimeoutMs);
    expect(rules.claimWaitSlackMs).toBeLessThan(rules.browserWaitSlackMs);
    expect(rules.defaultMaxStaleSeconds).toBeGreaterThanOrEqual(rules.defaultIntervalSeconds);
    expect(new RegExp(rules.bearerTokenSyntax).test('abc.DEF-1_2~3+4/5==')).toBe(true);
    expect(new RegExp(rules.bearerTokenSyntax).test('a b')).toBe(false);
  });
});
