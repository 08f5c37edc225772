import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from 'srvx';
import { systemTimers, type Timers } from '../src/contract/timers.js';

export interface NodeServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Loopback by default: in production a reverse proxy or CDN sits in front. */
  readonly hostname?: string | undefined;
  /** How long answers under way may take to finish when the server closes. */
  readonly graceMs: number;
  /** Runs when close() starts, before connections are drained (to release held requests, say). */
  readonly beforeClose?: () => void;
  /** What the close's waits run on (moved by tests); the system's timers when absent. */
  readonly timers?: Timers;
}

export interface NodeServer {
  /** Origin without trailing slash, e.g. `http://127.0.0.1:8788`. */
  readonly url: string;
  /** Lets answers under way finish (for `graceMs` at most), then closes every connection. */
  close(): Promise<void>;
}

const IDLE_SWEEP_MS = 25;

/** Serves a standard Fetch handler on Node through srvx's adapter; resolves once it listens. */
export async function serveOnNode(
  fetch: (request: Request) => Response | Promise<Response>,
  options: NodeServerOptions,
): Promise<NodeServer> {
  const server = serve({
    fetch: (request) => {
      const answer = fetch(request);
      return answer instanceof Promise ? answer.then(closingAfterRefusedBody) : closingAfterRefusedBody(answer);
    },
    port: options.port,
    hostname: options.hostname ?? '127.0.0.1',
    silent: true,
    // Commands handle signals themselves, so they can say what they are doing.
    gracefulShutdown: false,
  });
  await server.ready();
  const nodeServer = server.node?.server as HttpServer;
  const address = nodeServer.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    close() {
      closing ??= (async () => {
        options.beforeClose?.();
        await closeGracefully(server, nodeServer, options.graceMs, options.timers ?? systemTimers);
      })();
      return closing;
    },
  };
}

/**
 * A 413 may come before the body was read to its end (see `readCappedBytes`): the connection is
 * then closed after the answer, or the rest of the body would be read as the next request, or
 * reset the client's next one.
 */
function closingAfterRefusedBody(response: Response): Response {
  if (response.status !== 413 || response.headers.get('connection') === 'close') return response;
  const headers = new Headers(response.headers);
  headers.set('Connection', 'close');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * Keep-alive connections become idle only after their answer is sent, after close()'s own
 * one-off sweep, so idle ones are swept again until all are gone; after `graceMs` the rest are cut.
 */
async function closeGracefully(server: ReturnType<typeof serve>, nodeServer: HttpServer, graceMs: number, timers: Timers): Promise<void> {
  const stopSweeping = timers.every(IDLE_SWEEP_MS, () => nodeServer.closeIdleConnections());
  let cancelForce = () => {};
  const forced = new Promise<void>((resolve) => {
    cancelForce = timers.after(graceMs, () => resolve(server.close(true)));
  });
  try {
    await Promise.race([server.close(), forced]);
  } finally {
    stopSweeping();
    cancelForce();
  }
}
