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
}

/**
 * Checks a Redis URL: `redis://` or `rediss://`, a host, an optional port, an optional database
 * number as the path, nothing else. Every message describes the problem without quoting the URL,
 * which may hold a password.
 */
export function parseRedisUrl(text: string): RedisTarget {
  const example = 'like "redis://127.0.0.1:6379/0" (or rediss:// for TLS)';
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
  };
}
