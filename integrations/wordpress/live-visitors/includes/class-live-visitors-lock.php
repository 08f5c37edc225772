<?php
/**
 * The right to ask the service, held by one PHP worker of the whole site at a time.
 *
 * @package LiveVisitors
 */

defined( 'ABSPATH' ) || exit;

/**
 * A lock in the options table, the site's one store every worker shares: taken by an atomic
 * `INSERT IGNORE`, with an expiry in its value, so a worker that died holding it stalls nobody
 * past that moment (the next one takes it over with a compare-and-swap `UPDATE`). Released only
 * by its owner. `add_option` cannot serve: it inserts with `ON DUPLICATE KEY UPDATE`, so two
 * workers would both believe they won.
 */
final class Live_Visitors_Lock {

	public const OPTION = '_live_visitors_lock';

	private string $owner;

	public function __construct() {
		$this->owner = wp_generate_uuid4();
	}

	/**
	 * Takes the lock for `$ttl_ms`, or says another worker holds it.
	 *
	 * @param int $now_ms Milliseconds since the epoch.
	 * @param int $ttl_ms How long the lock lasts if this worker never releases it.
	 */
	public function acquire( int $now_ms, int $ttl_ms ): bool {
		global $wpdb;
		$value = ( $now_ms + $ttl_ms ) . '|' . $this->owner;
		$inserted = $wpdb->query( $wpdb->prepare( "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')", self::OPTION, $value ) );
		if ( 1 === $inserted ) {
			return true;
		}
		$held = $wpdb->get_var( $wpdb->prepare( "SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", self::OPTION ) );
		if ( ! is_string( $held ) ) {
			// Released between the two queries: one more try, no loop.
			return 1 === $wpdb->query( $wpdb->prepare( "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')", self::OPTION, $value ) );
		}
		$expires_ms = (int) strtok( $held, '|' );
		if ( $expires_ms > $now_ms ) {
			return false;
		}
		// Expired: its holder died or hangs. Only one of the workers that saw the same old value wins.
		return 1 === $wpdb->query( $wpdb->prepare( "UPDATE {$wpdb->options} SET option_value = %s WHERE option_name = %s AND option_value = %s", $value, self::OPTION, $held ) );
	}

	/** Lets go, if this worker still holds it (after an expiry another one may). */
	public function release(): void {
		global $wpdb;
		$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name = %s AND option_value LIKE %s", self::OPTION, '%|' . $wpdb->esc_like( $this->owner ) ) );
	}

	/** Removes any lock (deactivation and uninstall). */
	public static function remove(): void {
		global $wpdb;
		$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name = %s", self::OPTION ) );
	}
}
