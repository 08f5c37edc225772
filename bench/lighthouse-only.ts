// `npx tsx bench/lighthouse-only.ts` after `npm run build`: only the Lighthouse tables of `npm run bench`.
import { benchLighthouse } from './lighthouse.js';

await benchLighthouse();
