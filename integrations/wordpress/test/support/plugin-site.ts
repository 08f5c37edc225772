import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RELAYED } from '../../../../relay/test/black-box/recording-upstream.js';
import type { RelayTarget } from '../../../../relay/test/black-box/relay-target.js';
import { buildWordPressPlugin, type PluginBuild } from '../../build.js';
import { startWordPress, type WordPressSite } from './wordpress-site.js';

export const PLUGIN = 'live-visitors/live-visitors.php';

export interface PluginSite extends WordPressSite {
  readonly build: PluginBuild;
}

/** PHP source for a JSON value: decoded in PHP, so no quoting of PHP literals can go wrong. */
export const phpValue = (value: unknown) =>
  `json_decode( base64_decode( '${Buffer.from(JSON.stringify(value)).toString('base64')}' ), true )`;

/** Where the integrations suite's global setup leaves the one plugin zip of the run (`PluginBuild` as JSON). */
export const PLUGIN_BUILD_VARIABLE = 'LIVE_VISITORS_PLUGIN_BUILD';

/**
 * WordPress with the plugin installed from the zip `npm run build` writes (built from the freshly
 * built dist/: once per test run by plugin-zip-setup.ts, or here for `npm run bench`), optionally
 * activated.
 */
export async function startPluginSite(options: { activate?: boolean } = {}): Promise<PluginSite> {
  const built = process.env[PLUGIN_BUILD_VARIABLE];
  const build: PluginBuild = built
    ? JSON.parse(built)
    : buildWordPressPlugin({ zipPath: join(mkdtempSync(join(tmpdir(), 'live-visitors-zip-')), 'live-visitors.zip') });
  const site = await startWordPress({ pluginZip: build.zipPath });
  if (options.activate ?? true) site.php(`return activate_plugin( '${PLUGIN}' );`);
  return Object.assign(site, { build });
}

/**
 * Stores settings as the settings page would (through the plugin's own sanitize callback) and
 * forgets any cached answer, budget and lock; returns the settings as stored.
 */
export function configure(site: WordPressSite, settings: Record<string, unknown>): Record<string, unknown> {
  return site.php(
    `update_option( 'live_visitors_settings', ${phpValue(settings)} );
     Live_Visitors_State_Store::forget_everything();
     return get_option( 'live_visitors_settings' );`,
  );
}

/** The plugin's REST route as the relay contract's target, on one WordPress shared by the file's tests. */
export function wordPressRelayTarget(site: () => WordPressSite): RelayTarget {
  return {
    name: 'WordPress plugin',
    quotesServiceWords: false,
    async start({ upstream, interval, maxStale, hourlyBudget }) {
      const wordpress = site();
      configure(wordpress, {
        website_id: RELAYED.id,
        token: RELAYED.token,
        base_url: upstream.url,
        interval,
        max_stale: maxStale,
        hourly_budget: hourlyBudget,
      });
      const logFrom = wordpress.readDebugLog().length;
      return {
        realtimeUrl: `${wordpress.url}/wp-json/live-visitors/api/v1/realtime`,
        logs: async () => wordpress.readDebugLog().slice(logFrom),
        close: async () => undefined,
      };
    },
  };
}
