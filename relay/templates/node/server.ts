/**
 * The relay on Node, started in code (what `npx live-visitors-relay --port 8788 --config relay.json`
 * does): `node server.ts` (Node strips the types itself). relay.json
 * holds the settings; LIVE_VISITORS_WEBSITES, a secret of the host, adds the websites and their tokens.
 */
import { fileURLToPath } from 'node:url';
import { loadRelayConfig, startRelayServer } from 'live-visitors-relay/node';

const config = await loadRelayConfig(fileURLToPath(new URL('relay.json', import.meta.url)), process.env);
// Loopback by default, behind the web server of the shop's origin; PORT=0 picks a free port.
const server = await startRelayServer({ port: Number(process.env.PORT ?? 8788), hostname: process.env.HOST, config });
console.log(`live-visitors relay listening on ${server.url}`);

// Answers under way finish before the process ends.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void server.close());
