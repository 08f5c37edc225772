import { createEmulator, type Emulator, type EmulatorOptions } from '../../../emulator/src/index.js';
import { serveOnLoopback } from './loopback-server.js';

const REALTIME_PATH = '/api/v1/realtime';

export interface CountingEmulator {
  /** Origin without a trailing slash, e.g. `http://127.0.0.1:53124`. */
  readonly url: string;
  readonly emulator: Emulator;
  /** `GET /api/v1/realtime` requests received so far (preflights are not requests for a count). */
  readonly realtimeRequests: number;
  /** Realtime requests received whose answer has not been handed back yet (held by `hang` or `slow`). */
  readonly heldRequests: number;
  /** Makes the service count exactly `visitors` on `websiteId` (forgets other pageviews, clears any fault). */
  setVisitors(websiteId: string, visitors: number): void;
  close(): Promise<void>;
}

/**
 * The emulator over real HTTP on 127.0.0.1, with a counter at its door: every realtime request a
 * browser sends is counted where the service would bill it, whatever the page believes it sent.
 */
export async function startCountingEmulator(options: EmulatorOptions = {}): Promise<CountingEmulator> {
  const emulator = createEmulator({ controls: true, ...options });
  let realtimeRequests = 0;
  let heldRequests = 0;
  let generation = 0;

  const server = await serveOnLoopback(async (request) => {
    if (request.method !== 'GET' || new URL(request.url).pathname !== REALTIME_PATH) return emulator.handler(request);
    realtimeRequests += 1;
    heldRequests += 1;
    try {
      return await emulator.handler(request);
    } finally {
      heldRequests -= 1;
    }
  });

  return {
    url: server.url,
    emulator,
    get realtimeRequests() {
      return realtimeRequests;
    },
    get heldRequests() {
      return heldRequests;
    },
    setVisitors(websiteId, visitors) {
      emulator.reset();
      generation += 1;
      for (let index = 0; index < visitors; index += 1) emulator.recordPageview(websiteId, `visitor-${generation}-${index}`);
    },
    async close() {
      // Answers held requests (503) before the sockets go.
      emulator.dispose();
      await server.close();
    },
  };
}
