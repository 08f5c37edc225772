// The script-tag file's entry (dist/live-visitors.js): the element, registered, and placement by
// the page's `window.liveVisitors` queue. The package's own entries (index, define) leave placement
// out: an app that bundles the element writes it in its templates.
import { watchPlacementQueue } from './placement-queue.js';

export { LiveVisitors, TAG_NAME } from './define.js';

watchPlacementQueue();
