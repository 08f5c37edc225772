import { describe, expect, it } from 'vitest';
import { parseRelayConfig, RelayConfigError } from '../src/config.js';
import { relayConfigFromEnvironment } from '../src/environment-overrides.js';

const KEY = `k1:${btoa('k'.repeat(32))}`;
const SECRET = 'shpss_0123456789abcdef';
const APP = {
  upstream: 'https://analytics.example',
  selfServe: true,
  encryptionKeys: [KEY],
  registrationsMayBeLost: true,
  shopifyAppSecret: SECRET,
};

function issuesOf(input: unknown): string[] {
  try {
    parseRelayConfig(input, { source: 'relay.json' });
  } catch (error) {
    if (error instanceof RelayConfigError) return [...error.issues];
    throw error;
  }
  return [];
}

describe('the shopifyApp config field', () => {
  it('reads the client id beside the secret, and is null when absent', () => {
    expect(parseRelayConfig({ ...APP, shopifyApp: { clientId: 'a1b2c3' } }).shopifyApp).toEqual({ clientId: 'a1b2c3' });
    expect(parseRelayConfig(APP).shopifyApp).toBeNull();
  });

  it('comes from LIVE_VISITORS_SHOPIFY_CLIENT_ID too', () => {
    const config = relayConfigFromEnvironment({
      LIVE_VISITORS_UPSTREAM: 'https://analytics.example',
      LIVE_VISITORS_SELF_SERVE: 'true',
      LIVE_VISITORS_ENCRYPTION_KEYS: KEY,
      LIVE_VISITORS_REGISTRATIONS_MAY_BE_LOST: 'true',
      LIVE_VISITORS_SHOPIFY_APP_SECRET: SECRET,
      LIVE_VISITORS_SHOPIFY_CLIENT_ID: 'from-env',
    });
    expect(config.shopifyApp).toEqual({ clientId: 'from-env' });
  });

  it.each([
    ['without the secret', { ...APP, shopifyAppSecret: undefined, shopifyApp: { clientId: 'a' } }, /shopifyApp needs shopifyAppSecret/],
    ['without selfServe', { ...APP, selfServe: false, shopifyApp: { clientId: 'a' } }, /shopifyApp needs selfServe: true/],
    ['a client id with a space', { ...APP, shopifyApp: { clientId: 'a b' } }, /shopifyApp\.clientId must be the app's client id/],
    ['a client id that is a number', { ...APP, shopifyApp: { clientId: 12 } }, /shopifyApp\.clientId must be/],
    ['a string instead of an object', { ...APP, shopifyApp: 'a1b2' }, /shopifyApp must be an object like/],
    ['an unknown field', { ...APP, shopifyApp: { clientId: 'a', secret: 'x' } }, /shopifyApp\.secret is not a known field/],
  ])('refuses a shopifyApp %s, naming the field', (_name, input, message) => {
    const issues = issuesOf(input);
    expect(issues.join('\n')).toMatch(message);
    expect(issues.join('\n')).not.toContain(SECRET);
  });
});
