import { serveOnNode } from '../../server-kit/serve.js';
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

/** Serves an emulator over HTTP on 127.0.0.1 (by default); resolves once it listens. */
export async function startEmulatorServer(options: EmulatorServerOptions): Promise<EmulatorServer> {
  const emulator = createEmulator(options);
  try {
    const server = await serveOnNode(emulator.handler, {
      port: options.port,
      hostname: options.hostname,
      graceMs: GRACE_MS,
      // Releasing held requests first lets them finish within the grace period.
      beforeClose: () => emulator.dispose(),
    });
    return { url: server.url, emulator, close: () => server.close() };
  } catch (error) {
    // Nothing listens, but the simulator's timer would keep the process alive.
    emulator.dispose();
    throw error;
  }
}
