/**
 * The relay on Deno (and Deno Deploy): `deno run --allow-net --allow-env --allow-read main.ts`.
 * The config comes from the LIVE_VISITORS_* variables; LIVE_VISITORS_WEBSITES holds the tokens,
 * so set it as a secret, never in this file.
 */
import { createRelay, relayConfigFromEnvironment } from 'live-visitors-relay';
import { createRegistrationStore, createRelayStore } from 'live-visitors-relay/node';

// Once per isolate, not per request: all requests share its cache and its one upstream request per interval.
const config = relayConfigFromEnvironment(Deno.env.toObject());
// The fleet's shared store when LIVE_VISITORS_STORE names one (Redis), else this isolate's memory.
// With LIVE_VISITORS_SELF_SERVE=true, owners' registrations live in that Redis (or LIVE_VISITORS_REGISTRATIONS_FILE).
const relay = createRelay({ config, store: await createRelayStore(config), registrationStore: await createRegistrationStore(config) });

// Deno Deploy ignores both; on a machine of your own, loopback behind the web server of the shop's origin.
Deno.serve({ port: Number(Deno.env.get('PORT') ?? 8788), hostname: Deno.env.get('HOST') ?? '127.0.0.1' }, relay);
