import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from 'srvx/node';
import type { NodeHttp1Handler } from 'srvx';
import type { Plugin } from 'vite';
import { createEmulator, type EmulatorOptions } from '../src/server/emulator/index.js';

const EMULATED_PATHS = ['/api/', '/__emulator/'];
const DEMO_CROWD = 40;

/**
 * Mounts the realtime service emulator on the Vite dev server, on the demo's own origin, so
 * `npm start` needs no account and no network. srvx adapts Node's request to the Fetch handler.
 */
export function emulatorPlugin(options: EmulatorOptions = {}): Plugin {
  return {
    name: 'live-visitors:emulator',
    apply: 'serve',
    configureServer(server) {
      const emulator = createEmulator({ controls: true, simulate: DEMO_CROWD, ...options });
      // Fill the shop at once: a marketer should see a believable number on the first load, not a ramp from zero.
      emulator.traffic.setTarget(DEMO_CROWD, { immediate: true });
      // srvx types its Node handler as HTTP/1-or-HTTP/2; Vite's dev server speaks HTTP/1.
      const handle = toNodeHandler(emulator.handler) as NodeHttp1Handler;
      server.middlewares.use((request: IncomingMessage, response: ServerResponse, next: () => void) => {
        if (!EMULATED_PATHS.some((path) => request.url?.startsWith(path))) return next();
        void handle(request, response);
      });
      server.httpServer?.once('close', () => emulator.dispose());
      server.httpServer?.once('listening', () => {
        setTimeout(() => {
          const sites = emulator.config.websites.map((site) => `${site.id} (token ${site.token}, ${site.plan} plan)`);
          server.config.logger.info(`\n  Emulated realtime service on the same origin: ${sites.join(', ')}\n`);
        }, 50);
      });
    },
  };
}
