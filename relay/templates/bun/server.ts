/**
 * The relay on Bun: `bun server.ts`. The config comes from the LIVE_VISITORS_* variables;
 * LIVE_VISITORS_WEBSITES holds the tokens, so set it as a secret, never in this file.
 */
import { createRelay, relayConfigFromEnvironment } from 'live-visitors-relay';
import { createRegistrationStore, createRelayStore } from 'live-visitors-relay/node';

// Once per process, not per request: all requests share its cache and its one upstream request per interval.
const config = relayConfigFromEnvironment(process.env);
// The fleet's shared store when LIVE_VISITORS_STORE names one (Redis), else this process's memory.
// With LIVE_VISITORS_SELF_SERVE=true, owners' registrations live in that Redis (or LIVE_VISITORS_REGISTRATIONS_FILE).
const relay = createRelay({ config, store: await createRelayStore(config), registrationStore: await createRegistrationStore(config) });

// Loopback by default, behind the web server of the shop's origin; HOST=0.0.0.0 in a container.
const server = Bun.serve({ port: Number(process.env.PORT ?? 8788), hostname: process.env.HOST ?? '127.0.0.1', fetch: relay });
console.log(`live-visitors relay listening on ${server.url}`);
