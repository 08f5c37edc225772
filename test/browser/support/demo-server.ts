import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type ViteDevServer } from 'vite';

export interface DemoServer {
  readonly server: ViteDevServer;
  /** The server's origin, without a trailing slash. */
  readonly origin: string;
}

/**
 * `npm start`'s server (Vite with the emulator and the demo relay mounted), from the same config, on
 * a free port. No file watcher: other work on this checkout must not reload the page under the test.
 */
export async function startDemoServer(): Promise<DemoServer> {
  const server = await createServer({
    configFile: fileURLToPath(new URL('../../../vite.config.ts', import.meta.url)),
    server: { port: 0, watch: null },
    // A cache of its own: two servers optimizing dependencies into one folder would clobber each other.
    cacheDir: mkdtempSync(join(tmpdir(), 'live-visitors-vite-')),
    logLevel: 'warn',
    clearScreen: false,
  });
  await server.listen();
  return { server, origin: server.resolvedUrls!.local[0]!.replace(/\/$/, '') };
}
