import { mkdtempSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeHttp1Handler } from 'srvx';
import { toNodeHandler } from 'srvx/node';
import type { Plugin } from 'vite';
import { createEmulator, type EmulatorOptions } from '../emulator/src/index.js';
import { buildWordPressPlugin } from '../integrations/wordpress/build.js';
import { writeBundledElement } from '../relay/src/element-files/write-bundled-element.js';
import { createRelay } from '../relay/src/index.js';

const DEMO_CROWD = 40;
const DEMO_SHOP = 'demo-shop';
/** The relay lives under this prefix, as it would on a shop's own origin. */
const RELAY_PREFIX = '/relay';
/** Left out of the relay's config so a marketer can register it on the relay's page, as an owner would. */
const REGISTERED_BY_HAND = 'small-shop';

/**
 * Mounts the realtime service emulator on the Vite dev server, on the demo's own origin, so
 * `npm start` needs no account and no network; and a relay in front of it under /relay, to show
 * the widget with no token in the page. srvx adapts Node's request to the Fetch handlers.
 */
export function emulatorPlugin(options: EmulatorOptions = {}): Plugin {
  return {
    name: 'live-visitors:emulator',
    apply: 'serve',
    async configureServer(server) {
      // A marketer sees a believable crowd on the first load: the simulator starts full, not from zero.
      const emulator = createEmulator({ controls: true, simulate: DEMO_CROWD, ...options });
      // The demo shop again, read through each analytics service's stand-in: `demo-shop-plausible`…
      const standIns = await emulator.handler(new Request(`http://emulator.localhost/__emulator/sources/${DEMO_SHOP}`));
      const sources = Object.entries((await standIns.json()) as Record<string, object>).map(([kind, source]) => ({
        id: `${DEMO_SHOP}-${kind}`,
        source,
      }));
      // The relay's build step, so the demo relay serves this checkout's element and hands out its own script URL.
      await writeBundledElement();
      const relay = createRelay({
        config: {
          upstream: 'http://emulator.localhost',
          websites: [
            ...emulator.config.websites.filter(({ id }) => id !== REGISTERED_BY_HAND).map(({ id, token }) => ({ id, token })),
            ...(sources as never[]),
          ],
          allowOrigins: [],
          interval: 15,
          maxStale: 600,
          hourlyBudget: 10_000,
          // Owners register websites on the relay's page (/relay/), as with a relay hosted for many shops.
          selfServe: true,
          encryptionKeys: [freshEncryptionKey()],
          // The demo's case: registrations live in memory, with a key made at start, and a restart
          // of `npm start` forgets them. A real relay keeps them in Redis or a file, under a kept key.
          registrationsMayBeLost: true,
          // A marketer mistyping a token a few times is not a flood: one client may try 60 times an hour.
          registrationsPerHour: 600,
        },
        // The relay reaches the emulator in-process: same answers, no socket back to ourselves.
        fetch: (input, init) => emulator.handler(new Request(input, init)),
      });
      const withoutPrefix = (request: Request) => {
        const url = new URL(request.url);
        url.pathname = url.pathname.slice(RELAY_PREFIX.length);
        return relay(new Request(url, request));
      };
      // srvx types its Node handler as HTTP/1-or-HTTP/2; Vite's dev server speaks HTTP/1.
      const handleService = toNodeHandler(emulator.handler) as NodeHttp1Handler;
      const handleRelay = toNodeHandler(withoutPrefix) as NodeHttp1Handler;

      server.middlewares.use((request: IncomingMessage, response: ServerResponse, next: () => void) => {
        const path = request.url ?? '';
        // The relay's page links its files relative to itself, so it must be read from /relay/.
        if (path === RELAY_PREFIX || path.startsWith(`${RELAY_PREFIX}?`)) {
          response.writeHead(308, { Location: `${RELAY_PREFIX}/${path.slice(RELAY_PREFIX.length)}` }).end();
        } else if (path.startsWith(`${RELAY_PREFIX}/`)) void handleRelay(request, response);
        else if (path.startsWith('/api/') || path.startsWith('/__emulator/')) void handleService(request, response);
        else if (path === PLUGIN_ZIP_PATH) sendPluginZip(response);
        else next();
      });
      server.httpServer?.once('close', () => emulator.dispose());
      server.httpServer?.once('listening', () => {
        setTimeout(() => {
          const sites = emulator.config.websites.map((site) => `${site.id} (token ${site.token}, ${site.plan} plan)`);
          server.config.logger.info(`\n  Emulated realtime service on the same origin: ${sites.join(', ')}`);
          server.config.logger.info(`  Relay (token kept server-side) at ${RELAY_PREFIX}/api/v1/realtime`);
          server.config.logger.info(`  Register a website (try ${REGISTERED_BY_HAND}) on the relay's page: ${RELAY_PREFIX}/\n`);
        }, 50);
      });
    },
  };
}

/** Where the WordPress tab's download link points. */
const PLUGIN_ZIP_PATH = '/downloads/live-visitors.zip';
let pluginZip: string | undefined;

/**
 * The WordPress plugin's zip, made from this checkout's built element as `npm run build` makes it,
 * on the first download (the demo's start stays as fast as before), into a folder of its own.
 */
function sendPluginZip(response: ServerResponse): void {
  try {
    pluginZip ??= buildWordPressPlugin({ zipPath: join(mkdtempSync(join(tmpdir(), 'live-visitors-demo-')), 'live-visitors.zip') }).zipPath;
    response
      .writeHead(200, { 'Content-Type': 'application/zip', 'Content-Disposition': 'attachment; filename="live-visitors.zip"' })
      .end(readFileSync(pluginZip));
  } catch (error) {
    pluginZip = undefined;
    response
      .writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' })
      .end(
        `The plugin's zip could not be made here (${error instanceof Error ? error.message : String(error)}): run npm run build, which writes integrations/wordpress/build/live-visitors.zip.\n`,
      );
  }
}

/** A key for the relay's `encryptionKeys`, `id:base64` of 32 random bytes from Web Crypto. */
function freshEncryptionKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `demo:${Buffer.from(bytes).toString('base64')}`;
}
