/**
 * A Worker that is the relay from its sources (relay/src, bundled by esbuild for workerd), with its
 * config from the Worker's environment, as the Cloudflare template reads it: for
 * sources-workerd.test.ts, which runs it in workerd.
 */
import { createRelay, type RelayHandler, relayConfigFromEnvironment } from '../src/index.js';

let relay: RelayHandler | undefined;

export default {
  fetch(request: Request, env: Readonly<Record<string, string | undefined>>): Response | Promise<Response> {
    relay ??= createRelay({ config: relayConfigFromEnvironment(env), log: (line) => console.warn(line) });
    return relay(request);
  },
};
