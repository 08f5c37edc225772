import { join } from 'node:path';
import { type CacheServer, startCacheProcess } from './cache-process.js';

/**
 * The VCL of docs/relay.md ("Behind a CDN or cache"), as tested: a backend and nothing else. The
 * builtin VCL already keeps an answer for `max-age` minus `Age`, turns `stale-while-revalidate`
 * into grace (a background fetch while the stale copy is served), and passes `no-store` errors on.
 */
function relayVcl(relayUrl: string): string {
  const { hostname, port } = new URL(relayUrl);
  return `vcl 4.1;

backend relay {
  .host = "${hostname}";
  .port = "${port || '80'}";
}
`;
}

/**
 * Debian's varnishd in the foreground (-F) in front of `relayUrl`, its work folder and VCL in a
 * folder of its own. -j none: it runs as whoever starts it (root here), so nothing depends on the
 * package's varnish users being able to reach that folder. No management port (-T none), and a
 * small shared log (vsl_space) instead of the default 80 MB.
 */
export function startVarnish(relayUrl: string): Promise<CacheServer> {
  return startCacheProcess({
    name: 'varnishd',
    binary: '/usr/sbin/varnishd',
    installHint: 'apt-get install -y varnish (.ci/run installs it)',
    files: () => ({ 'relay.vcl': relayVcl(relayUrl) }),
    args: (dir, port) => [
      ...['-F', '-n', join(dir, 'work'), '-a', `127.0.0.1:${port}`, '-f', join(dir, 'relay.vcl')],
      ...['-s', 'malloc,32m', '-j', 'none', '-T', 'none', '-p', 'vsl_space=1M'],
    ],
  });
}
