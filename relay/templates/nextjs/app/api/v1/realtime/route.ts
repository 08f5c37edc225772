/**
 * The relay as a Next.js App Router route handler, at the path the widget asks: /api/v1/realtime.
 * Set the LIVE_VISITORS_* variables in the host's settings; LIVE_VISITORS_WEBSITES holds the tokens.
 */
import { createRelay, type RelayHandler, relayConfigFromEnvironment } from 'live-visitors-relay';

// Every request asks the relay: Next.js must not render this route once at build time.
export const dynamic = 'force-dynamic';

let relay: RelayHandler | undefined;

// Created on the first request, then kept for the process: `next build` loads this module
// without the runtime's secrets, where creating it would fail.
function handle(request: Request): Response | Promise<Response> {
  relay ??= createRelay({ config: relayConfigFromEnvironment(process.env) });
  return relay(request);
}

export { handle as GET, handle as HEAD, handle as OPTIONS };
