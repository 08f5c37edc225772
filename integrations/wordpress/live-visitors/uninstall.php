<?php
/**
 * Uninstall: removes the plugin's settings, its cached count, its budget and its lock.
 *
 * @package LiveVisitors
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

delete_option( 'live_visitors_settings' );
delete_transient( 'live_visitors_state' );
delete_transient( 'live_visitors_budget' );
global $wpdb;
$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name = %s", '_live_visitors_lock' ) );
