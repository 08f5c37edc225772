/**
 * The relay on Bun: `bun server.ts`. The config comes from the LIVE_VISITORS_* variables;
 * LIVE_VISITORS_WEBSITES holds the tokens, so set it as a secret, never in this file.
 */
import { createRelay, relayConfigFromEnvironment } from 'live-visitors-relay';

// Once per process, not per request: all requests share its cache and its one upstream request per interval.
const relay = createRelay({ config: relayConfigFromEnvironment(process.env) });

// Loopback by default, behind the web server of the shop's origin; HOST=0.0.0.0 in a container.
const server = Bun.serve({ port: Number(process.env.PORT ?? 8788), hostname: process.env.HOST ?? '127.0.0.1', fetch: relay });
console.log(`live-visitors relay listening on ${server.url}`);
