/**
 * The address a registration attempt came from, for its per-client limit. With `header` (set by a
 * trusted reverse proxy), its right-most entry: each proxy appends the address it saw, so the
 * entries to its left are whatever the client sent and only the last one is the proxy's own word.
 * Without it, or when a request lacks it, the connection's address (srvx's `request.ip`).
 */
export function clientAddressReader(header: string | null): (request: Request) => string | undefined {
  const connection = (request: Request) => (request as { ip?: string }).ip;
  if (header === null) return connection;
  return (request) => {
    const entries = request.headers.get(header)?.split(',');
    const last = entries?.[entries.length - 1]?.trim();
    return last || connection(request);
  };
}
