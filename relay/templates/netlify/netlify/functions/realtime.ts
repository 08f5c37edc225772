/**
 * The relay as a Netlify Function, at the path the widget asks: /api/v1/realtime.
 * Set the LIVE_VISITORS_* variables in the site's settings; LIVE_VISITORS_WEBSITES holds the
 * tokens, so mark it secret.
 */
import { createRelay, relayConfigFromEnvironment } from 'live-visitors-relay';

// Once per function instance, not per request: warm invocations share its cache.
const relay = createRelay({ config: relayConfigFromEnvironment(process.env) });

export default (request: Request): Response | Promise<Response> => relay(request);

export const config = { path: '/api/v1/realtime' };
