// @vitest-environment node
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RELAYED, type RecordingUpstream, startRecordingUpstream } from '../../../relay/test/black-box/recording-upstream.js';
import { configure, PLUGIN, type PluginSite, startPluginSite } from './support/plugin-site.js';
import { get, logIn, SETTINGS_PAGE, saveSettings } from './support/wordpress-http.js';
import { ADMIN } from './support/wordpress-site.js';

// A fresh site with the plugin installed from its zip but never activated: activation,
// deactivation and uninstall with WP_DEBUG on must leave WP_DEBUG_LOG's file empty.
let site: PluginSite;
let upstream: RecordingUpstream;
let admin: string;

beforeAll(async () => {
  [site, upstream] = await Promise.all([startPluginSite({ activate: false }), startRecordingUpstream()]);
  admin = await logIn(site, ADMIN);
});
afterAll(async () => {
  await upstream?.close();
  await site?.stop();
});

/** Clicks a plugin's action link on Plugins, as an administrator does (the link carries its nonce). */
async function pluginAction(action: 'activate' | 'deactivate'): Promise<void> {
  const list = await get(site, '/wp-admin/plugins.php', { Cookie: admin });
  const href = new RegExp(`href="(plugins\\.php\\?action=${action}&amp;plugin=${encodeURIComponent(PLUGIN)}[^"]*)"`).exec(list.text)?.[1];
  expect(href, `the ${action} link`).toBeTruthy();
  const clicked = await get(site, `/wp-admin/${href!.replaceAll('&amp;', '&')}`, { Cookie: admin });
  expect(clicked.status).toBe(302);
}

const pluginOptions = () =>
  site.php<string[]>(
    `global $wpdb; return $wpdb->get_col( "SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE '%live\\_visitors%' ORDER BY option_name" );`,
  );

it('activates, shows its settings page, saves, and serves pages without a PHP warning or notice', async () => {
  site.clearDebugLog();
  await pluginAction('activate');
  expect(site.php<boolean>(`return is_plugin_active( '${PLUGIN}' );`)).toBe(true);
  expect((await get(site, SETTINGS_PAGE, { Cookie: admin })).status).toBe(200);
  const { page } = await saveSettings(site, admin, {
    website_id: RELAYED.id,
    token: RELAYED.token,
    base_url: upstream.url,
    interval: '60',
    max_stale: '600',
    hourly_budget: '100',
    sentence: '',
  });
  expect(page.text).toContain('Settings saved.');
  expect((await get(site, '/')).status).toBe(200);
  expect(site.readDebugLog()).toBe('');
});

it('deactivates leaving the site as it was: no cached count, budget or lock left, the settings kept, no warning', async () => {
  // A count fetched, so there is something to leave behind. (WordPress 6.1's HTTP library writes PHP 8.2
  // deprecation notices of its own here, so the log is cleared after it.)
  expect((await get(site, `/wp-json/live-visitors/api/v1/realtime?websiteId=${RELAYED.id}`)).status).toBe(200);
  expect(pluginOptions()).toEqual(
    expect.arrayContaining(['_transient_live_visitors_state', 'live_visitors_budget', 'live_visitors_settings']),
  );
  site.clearDebugLog();
  await pluginAction('deactivate');
  expect(site.php<boolean>(`return is_plugin_active( '${PLUGIN}' );`)).toBe(false);
  expect(pluginOptions()).toEqual(['live_visitors_settings']);
  expect((await get(site, '/')).status).toBe(200);
  expect(site.readDebugLog()).toBe('');
});

it('uninstalls (Plugins → Delete runs uninstall.php) removing its settings, transients and lock, with no warning', async () => {
  // Leave a cached count and a lock behind on purpose, as a site that deletes the plugin while active might.
  site.php(`activate_plugin( '${PLUGIN}' ); return true;`);
  configure(site, {
    website_id: RELAYED.id,
    token: RELAYED.token,
    base_url: upstream.url,
    interval: 60,
    max_stale: 600,
    hourly_budget: 100,
  });
  expect((await get(site, `/wp-json/live-visitors/api/v1/realtime?websiteId=${RELAYED.id}`)).status).toBe(200);
  site.php(`( new Live_Visitors_Lock() )->acquire( Live_Visitors_Relay::now_ms() ); deactivate_plugins( '${PLUGIN}' ); return true;`);
  site.clearDebugLog();
  expect(site.php<boolean>(`return delete_plugins( array( '${PLUGIN}' ) );`)).toBe(true);
  expect(pluginOptions()).toEqual([]);
  expect(site.php<boolean>(`return file_exists( WP_PLUGIN_DIR . '/live-visitors' );`)).toBe(false);
  expect((await get(site, '/')).status).toBe(200);
  expect(site.readDebugLog()).toBe('');
});
