import type { Server as HttpServer } from 'node:http';
import type { Server } from 'srvx';

const IDLE_SWEEP_MS = 25;

/**
 * Stops an srvx server on Node: lets answers under way finish, for `graceMs` at most, then
 * closes what is left. Keep-alive connections become idle only after their answer is sent,
 * after close()'s own one-off sweep, so idle ones are swept again until all are gone.
 */
export async function closeGracefully(server: Server, graceMs: number): Promise<void> {
  const nodeServer = server.node?.server as HttpServer | undefined;
  const sweep = setInterval(() => nodeServer?.closeIdleConnections(), IDLE_SWEEP_MS);
  let forceTimer: NodeJS.Timeout | undefined;
  const forced = new Promise<void>((resolve) => {
    forceTimer = setTimeout(() => resolve(server.close(true)), graceMs);
  });
  try {
    await Promise.race([server.close(), forced]);
  } finally {
    clearInterval(sweep);
    clearTimeout(forceTimer);
  }
}
