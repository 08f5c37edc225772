import type { AddressInfo } from 'node:net';
import { serve } from 'srvx';
import { closeGracefully } from '../close-gracefully.js';
import { createRelay, type RelayOptions } from './relay.js';

export interface RelayServerOptions extends RelayOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Loopback by default: in production a reverse proxy or CDN on the shop's origin sits in front. */
  readonly hostname?: string;
}

export interface RelayServer {
  /** Origin without trailing slash, e.g. `http://127.0.0.1:8788`. */
  readonly url: string;
  /** Lets answers in flight finish (a few seconds at most), then closes every connection. */
  close(): Promise<void>;
}

/** Longer than the upstream timeout, so a browser waiting on the service still gets its answer. */
const GRACE_MS = 6_000;

/** Serves a relay over HTTP with srvx's Node adapter; resolves once it listens. */
export async function startRelayServer(options: RelayServerOptions): Promise<RelayServer> {
  const { port, hostname = '127.0.0.1', ...relayOptions } = options;
  const server = serve({
    fetch: createRelay(relayOptions),
    port,
    hostname,
    silent: true,
    // The command handles signals itself, so it can say what it is doing.
    gracefulShutdown: false,
  });
  await server.ready();
  const address = server.node?.server?.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    close() {
      closing ??= closeGracefully(server, GRACE_MS);
      return closing;
    },
  };
}
