import { MemoryRegistrationStore } from '../../src/registry/memory-registration-store.js';
import { type RelayHarness, startRelayHarness } from './relay-harness.js';
import { CLIENT_ID, CLIENT_SECRET } from './shopify-oracle.js';

/** The relay as the Shopify app runs it: self-serving, with the app's secret and client id, registrations in memory. */
export function startShopifyAppRelay(): Promise<RelayHarness> {
  return startRelayHarness({
    config: {
      selfServe: true,
      encryptionKeys: [`k1:${btoa('a'.repeat(32))}`],
      shopifyAppSecret: CLIENT_SECRET,
      shopifyApp: { clientId: CLIENT_ID },
    },
    relay: { registrationStore: new MemoryRegistrationStore() },
  });
}
