import { createEmulator, type Emulator } from '../../../emulator/src/index.js';
import { serveOnLoopback } from '../../../test/browser/support/loopback-server.js';

/** The website a relay under test relays, with a token distinctive enough that finding it anywhere is a leak. */
export const RELAYED = { id: 'bb-shop', token: 'bbTok-SECRET+9f2c/e1==' } as const;
/** Known to the service but not to the relay: asking for it must cost no upstream request. */
export const NOT_RELAYED = { id: 'bb-other', token: 'bbTok-OTHER-5a7d' } as const;

export interface UpstreamRequest {
  readonly atMs: number;
  readonly url: string;
  readonly authorization: string | null;
}

export interface RecordingUpstream {
  /** Origin without a trailing slash: the relay's `upstream`. */
  readonly url: string;
  readonly emulator: Emulator;
  /** Every realtime request the service received, when it arrived: what the plan is charged. */
  readonly requests: readonly UpstreamRequest[];
  close(): Promise<void>;
}

/**
 * The emulator over real loopback HTTP, with a log at its door: both relays (Node, WordPress) are
 * measured where the service would bill them, whatever they believe they sent.
 */
export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const emulator = createEmulator({
    controls: false,
    onError: () => undefined,
    config: {
      websites: [
        { id: RELAYED.id, token: RELAYED.token, plan: 'enterprise' },
        { id: NOT_RELAYED.id, token: NOT_RELAYED.token, plan: 'enterprise' },
      ],
    },
  });
  const requests: UpstreamRequest[] = [];
  const server = await serveOnLoopback((request) => {
    if (new URL(request.url).pathname === '/api/v1/realtime') {
      requests.push({ atMs: Date.now(), url: request.url, authorization: request.headers.get('authorization') });
    }
    return emulator.handler(request);
  });
  return {
    url: server.url,
    emulator,
    requests,
    async close() {
      emulator.dispose();
      await server.close();
    },
  };
}
