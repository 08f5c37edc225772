// The demo's remote control of the emulated service (`/__emulator/…`, on the demo's own origin).

export type FaultRequest = { kind: string; delaySeconds?: number; retryAfterSeconds?: number };

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`/__emulator/${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} /__emulator/${path}: ${response.status}`);
  return response.json();
}

export const setFault = (fault: FaultRequest) => call('POST', 'fault', fault);
export const clearFault = () => call('DELETE', 'fault');

/** Moves the simulated crowd of one website by `delta` visitors; resolves to the new target. */
export async function nudgeTraffic(websiteId: string, delta: number): Promise<number> {
  const state = (await call('GET', 'state')) as { traffic?: { targets?: Record<string, number> } };
  const current = state.traffic?.targets?.[websiteId] ?? 40;
  const target = Math.max(0, current + delta);
  await call('POST', 'traffic', { target, websiteId, immediate: true });
  return target;
}

/** Counts this page's requests to the realtime endpoint, as the browser itself records them. */
export function countRealtimeRequests(onCount: (count: number) => void): void {
  let count = 0;
  new PerformanceObserver((list) => {
    count += list.getEntries().filter((entry) => entry.name.includes('/api/v1/realtime')).length;
    onCount(count);
  }).observe({ type: 'resource', buffered: true });
}
