import { serve } from 'srvx';

export interface LoopbackServer {
  /** Origin without a trailing slash, e.g. `http://127.0.0.1:53124`. */
  url: string;
  /** Stops at once, open connections included. */
  close(): Promise<void>;
}

/** A Fetch handler served on a free 127.0.0.1 port, for a test or a bench to stop when done. */
export async function serveOnLoopback(fetch: (request: Request) => Response | Promise<Response>): Promise<LoopbackServer> {
  const server = serve({ port: 0, hostname: '127.0.0.1', silent: true, gracefulShutdown: false, fetch });
  await server.ready();
  return { url: server.url!.replace(/\/$/, ''), close: () => server.close(true) };
}
