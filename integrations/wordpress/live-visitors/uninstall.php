<?php
/**
 * Uninstall: removes the plugin's settings, its cached count, its budget and its lock.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

// WordPress runs this file without the plugin's main file: the classes that know the names come here.
require_once __DIR__ . '/includes/class-live-visitors-rules.php';
require_once __DIR__ . '/includes/class-live-visitors-settings.php';
require_once __DIR__ . '/includes/class-live-visitors-lock.php';
require_once __DIR__ . '/includes/class-live-visitors-state-store.php';

delete_option( Live_Visitors_Settings::OPTION );
Live_Visitors_State_Store::forget_everything();
