// Runtime-neutral: the config check reads Redis URLs with it too, without loading the client.

/** Where a Redis URL points, checked; `label` is the URL without its credentials, for messages. */
export interface RedisTarget {
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
  readonly database: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly label: string;
  /**
   * A Redis Cluster's seed nodes (`redis+cluster://host:port,host:port`), the first being `host`
   * and `port`; null for one Redis. The client learns the other nodes from any seed.
   */
  readonly clusterSeeds: ReadonlyArray<{ readonly host: string; readonly port: number }> | null;
}

const CLUSTER_SCHEMES: Readonly<Record<string, string>> = { 'redis+cluster:': 'redis:', 'rediss+cluster:': 'rediss:' };
/** A cluster's seed nodes in one URL: a few are enough, the client finds the rest. */
const MAX_CLUSTER_SEEDS = 16;

/**
 * Checks a Redis URL (see `parseSingleRedisUrl`), or a Redis Cluster's: `redis+cluster://` (or
 * `rediss+cluster://` for TLS), optional credentials, then one or more `host:port` seed nodes
 * separated by commas, no database (a cluster has only database 0).
 */
export function parseRedisUrl(text: string): RedisTarget {
  const trimmed = text.trim();
  const scheme = /^[a-z+]+:/i.exec(trimmed)?.[0].toLowerCase() ?? '';
  const single = CLUSTER_SCHEMES[scheme];
  if (single === undefined) return parseSingleRedisUrl(trimmed);
  const rest = trimmed.slice(scheme.length).replace(/^\/\//, '');
  const at = rest.lastIndexOf('@');
  const credentials = at < 0 ? '' : `${rest.slice(0, at)}@`;
  const hosts = (at < 0 ? rest : rest.slice(at + 1)).replace(/\/$/, '').split(',');
  const example = 'like "redis+cluster://127.0.0.1:7000,127.0.0.1:7001"';
  if (hosts.length > MAX_CLUSTER_SEEDS) throw new Error(`store may name at most ${MAX_CLUSTER_SEEDS} cluster seed nodes, ${example}`);
  const seeds = hosts.map((host) => {
    if (host === '' || host.includes('/'))
      throw new Error(`store must list the cluster's nodes as host:port separated by commas, ${example}`);
    return parseSingleRedisUrl(`${single}//${credentials}${host}`);
  });
  const first = seeds[0]!;
  const label = `${scheme}//${seeds.map((seed) => `${seed.host.includes(':') ? `[${seed.host}]` : seed.host}:${seed.port}`).join(',')}`;
  return { ...first, label, clusterSeeds: seeds.map(({ host, port }) => ({ host, port })) };
}

/**
 * One Redis's URL: `redis://` or `rediss://`, a host, an optional port, an optional database
 * number as the path, nothing else. Every message describes the problem without quoting the URL,
 * which may hold a password.
 */
function parseSingleRedisUrl(text: string): RedisTarget {
  const example = 'like "redis://127.0.0.1:6379/0" (or rediss:// for TLS, redis+cluster://host:port,host:port for a Redis Cluster)';
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error(`store must be a Redis URL ${example}; this one cannot be parsed`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new Error(`store must be a Redis URL ${example}; this one's scheme is "${url.protocol.slice(0, 20)}"`);
  }
  if (url.hostname === '') throw new Error(`store must name a host, ${example}`);
  if (url.port === '0') throw new Error(`store must have a port from 1 to 65535, ${example}`);
  if (url.search !== '' || url.hash !== '') {
    throw new Error(`store must not have a query or fragment: put the database number in the path, ${example}`);
  }
  const path = url.pathname.replace(/^\//, '');
  if (path !== '' && !/^(0|[1-9]\d{0,8})$/.test(path)) {
    throw new Error(`store's database (the path after the host) must be a whole number from 0, ${example}`);
  }
  const database = path === '' ? 0 : Number(path);
  const port = url.port === '' ? 6379 : Number(url.port);
  let username: string | undefined;
  let password: string | undefined;
  try {
    username = url.username === '' ? undefined : decodeURIComponent(url.username);
    password = url.password === '' ? undefined : decodeURIComponent(url.password);
  } catch {
    throw new Error(`store's user name or password is not valid percent-encoding, ${example}`);
  }
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    tls: url.protocol === 'rediss:',
    database,
    username,
    password,
    label: `${url.protocol}//${url.hostname}:${port}/${database}`,
    clusterSeeds: null,
  };
}
