import { join } from 'node:path';
import { type CacheServer, startCacheProcess } from './cache-process.js';

/**
 * The `location` of docs/relay.md ("Behind a CDN or cache"), as tested. The cache keys on the whole
 * request URI (the query string names the website), refreshes in the background, and lets one
 * request fill an empty entry while the others wait.
 *
 * `proxy_cache_use_stale off` on purpose: nginx (since 1.11.10) then takes both stale windows from
 * the relay's `stale-while-revalidate` and `stale-if-error`. Any parameter listed there would serve
 * a stale copy however old, with the `Age` it had when fetched, past the relay's `maxStale`.
 * No `proxy_cache_revalidate`: on a 304 nginx keeps the headers it stored, so while the service
 * fails it would go on saying `Age: 0` of an ever older count instead of passing the relay's on.
 */
function nginxLocation(relayUrl: string): string {
  return `location = /api/v1/realtime {
      proxy_pass ${relayUrl};
      proxy_cache relay;
      proxy_cache_key $scheme$host$request_uri;
      proxy_cache_lock on;
      proxy_cache_background_update on;
      proxy_cache_use_stale off;
      add_header X-Cache-Status $upstream_cache_status always;
    }`;
}

/** Debian's nginx in the foreground in front of `relayUrl`, with every path (pid, logs, temp, cache) in its own folder. */
export function startNginx(relayUrl: string): Promise<CacheServer> {
  return startCacheProcess({
    name: 'nginx',
    binary: '/usr/sbin/nginx',
    installHint: 'apt-get install -y nginx (.ci/run installs it)',
    files: (dir, port) => ({ 'nginx.conf': nginxConfig(dir, port, relayUrl) }),
    // -e: the compiled-in error log (/var/log/nginx) would otherwise be opened before the config is read.
    args: (dir) => ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')],
  });
}

function nginxConfig(dir: string, port: number, relayUrl: string): string {
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  # When each answer left and how the cache got it, for reading a failed test.
  log_format timed '$msec $upstream_cache_status $upstream_response_time $request_time';
  access_log ${dir}/access.log timed;
  client_body_temp_path ${dir}/client_body_temp;
  proxy_temp_path ${dir}/proxy_temp;
  fastcgi_temp_path ${dir}/fastcgi_temp;
  uwsgi_temp_path ${dir}/uwsgi_temp;
  scgi_temp_path ${dir}/scgi_temp;
  proxy_cache_path ${dir}/cache keys_zone=relay:1m max_size=16m inactive=10m use_temp_path=off;
  server {
    listen 127.0.0.1:${port};
    ${nginxLocation(relayUrl)}
  }
}
`;
}
