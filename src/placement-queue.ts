/**
 * The script-tag file's side of placement (src/placement.ts): `window.liveVisitors` is a plain
 * array that pages and Tag Manager's `createQueue('liveVisitors')` push to, before or after this
 * file runs. Only when it has or gets an entry is the placement chunk imported, which then takes
 * the entries and the queue's `push`.
 */
export function watchPlacementQueue(): void {
  const global = globalThis as { liveVisitors?: unknown };
  global.liveVisitors ??= [];
  const queue = global.liveVisitors;
  if (!Array.isArray(queue)) return;
  const load = () => import('./placement.js').then((placement) => placement.takePlacements(queue));
  if (queue.length) load();
  else
    queue.push = (...entries: unknown[]) => {
      load();
      return Array.prototype.push.apply(queue, entries);
    };
}
