/**
 * The relay as a Vercel Edge Function, at the path the widget asks: /api/v1/realtime.
 * Set the LIVE_VISITORS_* variables in the project's settings; LIVE_VISITORS_WEBSITES holds the
 * tokens, so mark it sensitive.
 */
import { createRelay, relayConfigFromEnvironment } from 'live-visitors-relay';

export const config = { runtime: 'edge' };

// Once per isolate, not per request: all requests it serves share one cache.
const relay = createRelay({ config: relayConfigFromEnvironment(process.env) });

export default function handler(request: Request): Response | Promise<Response> {
  return relay(request);
}
