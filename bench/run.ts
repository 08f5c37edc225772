// `npm run bench`: sizes, requests, speed and memory, each printed with its ratio to an anchor measured in the same run.
import { benchBrowser } from './browser.js';
import { benchLighthouse } from './lighthouse.js';
import { benchRelay } from './relay.js';
import { benchRelayFleet } from './relay-fleet.js';
import { benchRequests } from './requests.js';
import { benchSize } from './size.js';

await benchSize();
await benchRequests();
await benchBrowser();
await benchLighthouse();
await benchRelay();
await benchRelayFleet();
