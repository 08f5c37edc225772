// `npm run bench`: sizes and request counts, each printed with its ratio to an anchor measured in the same run.
import { benchRequests } from './requests.js';
import { benchSize } from './size.js';

await benchSize();
await benchRequests();
