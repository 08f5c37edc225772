import type { AddressInfo } from 'node:net';
import { serve } from 'srvx';
import { closeGracefully } from '../close-gracefully.js';
import { createEmulator, type Emulator, type EmulatorOptions } from './emulator.js';

export interface EmulatorServerOptions extends EmulatorOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Loopback by default: the emulator is a development tool, not a service for the network. */
  readonly hostname?: string;
}

export interface EmulatorServer {
  /** Origin without trailing slash, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly emulator: Emulator;
  /** Releases held requests, lets in-flight answers finish (2 s at most), then closes. */
  close(): Promise<void>;
}

const GRACE_MS = 2_000;

/** Serves an emulator over HTTP with srvx's Node adapter; resolves once it listens. */
export async function startEmulatorServer(options: EmulatorServerOptions): Promise<EmulatorServer> {
  const emulator = createEmulator(options);
  const server = serve({
    fetch: emulator.handler,
    port: options.port,
    hostname: options.hostname ?? '127.0.0.1',
    silent: true,
    // The command handles signals itself, so it can stop the simulator first.
    gracefulShutdown: false,
  });
  try {
    await server.ready();
  } catch (error) {
    emulator.dispose();
    throw error;
  }
  const address = server.node?.server?.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    emulator,
    close() {
      closing ??= (() => {
        // Releasing held requests first lets them finish within the grace period.
        emulator.dispose();
        return closeGracefully(server, GRACE_MS);
      })();
      return closing;
    },
  };
}
