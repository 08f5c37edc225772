<?php
/**
 * Plugin Name:       Live visitors
 * Plugin URI:        https://github.com/live-visitors/live-visitors
 * Description:       Shows how many people are on your shop right now, beside an offer. The plugin is its own relay: the API token stays on the server and the whole site makes one request to the analytics service per interval.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      8.2
 * Author:            live-visitors
 * License:           MIT
 * License URI:       https://opensource.org/licenses/MIT
 * Text Domain:       live-visitors
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

const LIVE_VISITORS_VERSION = '0.1.0';
const LIVE_VISITORS_FILE    = __FILE__;

require_once __DIR__ . '/includes/class-live-visitors-rules.php';
require_once __DIR__ . '/includes/class-live-visitors-settings.php';
require_once __DIR__ . '/includes/class-live-visitors-redactor.php';
require_once __DIR__ . '/includes/class-live-visitors-upstream.php';
require_once __DIR__ . '/includes/class-live-visitors-stored-records.php';
require_once __DIR__ . '/includes/class-live-visitors-lock.php';
require_once __DIR__ . '/includes/class-live-visitors-state-store.php';
require_once __DIR__ . '/includes/class-live-visitors-relay.php';
require_once __DIR__ . '/includes/class-live-visitors-route.php';
require_once __DIR__ . '/includes/class-live-visitors-loader.php';
require_once __DIR__ . '/includes/class-live-visitors-element.php';
require_once __DIR__ . '/includes/class-live-visitors-admin.php';

Live_Visitors_Settings::register_hooks();
Live_Visitors_Route::register_hooks();
Live_Visitors_Loader::register_hooks();
Live_Visitors_Element::register_hooks();
Live_Visitors_Admin::register_hooks();

// Deactivation leaves the site as it was before: the cached count, the budget and the lock go, the settings stay.
register_deactivation_hook( __FILE__, array( 'Live_Visitors_State_Store', 'forget_everything' ) );
