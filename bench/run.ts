// `npm run bench`: sizes, requests, speed and memory, each printed with its ratio to an anchor measured in the same run.
import { benchBrowser } from './browser.js';
import { benchLanguagePaint } from './language-paint.js';
import { benchLighthouse } from './lighthouse.js';
import { benchPlacementPaint } from './placement-paint.js';
import { benchRelay } from './relay.js';
import { benchRelayFleet } from './relay-fleet.js';
import { benchRelayRegistry } from './relay-registry.js';
import { benchRelayScale } from './relay-scale.js';
import { benchRequests } from './requests.js';
import { benchShopifyAppProxy } from './shopify-app-proxy.js';
import { benchShopifyChecksSize } from './shopify-checks-size.js';
import { benchSize } from './size.js';

await benchSize();
await benchShopifyChecksSize();
await benchRequests();
// The throughput runs first of the timed ones: Chromium's processes from the browser runs can
// linger for a while after they close, on a machine with two cores.
await benchRelay();
await benchRelayFleet();
await benchRelayRegistry();
await benchRelayScale();
await benchShopifyAppProxy();
await benchBrowser();
await benchLanguagePaint();
await benchPlacementPaint();
await benchLighthouse();
