// `npx tsx bench/placement-only.ts` after `npm run build`: only the placement table of `npm run bench`.
import { benchPlacementPaint } from './placement-paint.js';

await benchPlacementPaint();
