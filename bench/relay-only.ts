// `npx tsx bench/relay-only.ts`: only the relay's measurements of `npm run bench`.
import { benchRelay } from './relay.js';
import { benchRelayFleet } from './relay-fleet.js';
import { benchRelayRegistry } from './relay-registry.js';
import { benchRelayScale } from './relay-scale.js';
import { benchShopifyAppProxy } from './shopify-app-proxy.js';

await benchRelayFleet();
await benchRelayRegistry();
await benchRelayScale();
await benchRelay();
await benchShopifyAppProxy();
