// `npx tsx bench/size-only.ts` after `npm run build`: only the size table of `npm run bench`.
import { benchSize } from './size.js';

await benchSize();
