<?php
/**
 * The right to ask the service, held by one PHP worker of the whole site at a time.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * A lock in the options table, the site's one store every worker shares: taken by an atomic
 * `INSERT IGNORE`, with an expiry in its value, so a worker that died holding it stalls nobody
 * past that moment (the next one takes it over with a compare-and-swap `UPDATE`). Released only
 * by its owner. `add_option` cannot serve: it inserts with `ON DUPLICATE KEY UPDATE`, so two
 * workers would both believe they won. A value that is not the plugin's, or that claims more
 * than a lock's life, is a stranger's (a skewed clock that died holding it): taken over at once.
 */
final class Live_Visitors_Lock {

	public const OPTION = '_live_visitors_lock';
	/** The lock outlives the upstream request by the Node relay's claim slack: the holder's reads and writes fit in it. */
	public const LIFE_MS = Live_Visitors_Rules::UPSTREAM_TIMEOUT_MS + Live_Visitors_Rules::CLAIM_SLACK_MS;

	private string $owner;

	public function __construct() {
		$this->owner = wp_generate_uuid4();
	}

	/**
	 * Takes the lock for its life, or says another worker holds it.
	 *
	 * @param int $now_ms Milliseconds since the epoch.
	 */
	public function acquire( int $now_ms ): bool {
		global $wpdb;
		$value    = ( $now_ms + self::LIFE_MS ) . '|' . $this->owner;
		$inserted = $wpdb->query( $wpdb->prepare( "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')", self::OPTION, $value ) );
		if ( 1 === $inserted ) {
			return true;
		}
		$held = $wpdb->get_var( $wpdb->prepare( "SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", self::OPTION ) );
		if ( ! is_string( $held ) ) {
			// Released between the two queries: one more try, no loop.
			return 1 === $wpdb->query( $wpdb->prepare( "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')", self::OPTION, $value ) );
		}
		$expires_ms = Live_Visitors_Stored_Records::read_lock_expiry( $held, $now_ms, self::LIFE_MS );
		if ( null !== $expires_ms && $expires_ms > $now_ms ) {
			return false;
		}
		// Expired or a stranger's: only one of the workers that saw the same old value wins.
		return 1 === $wpdb->query( $wpdb->prepare( "UPDATE {$wpdb->options} SET option_value = %s WHERE option_name = %s AND option_value = %s", $value, self::OPTION, $held ) );
	}

	/** The lock row's value as it is now (whoever holds it), or null when nobody does. */
	public static function held_value(): ?string {
		global $wpdb;
		$held = $wpdb->get_var( $wpdb->prepare( "SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", self::OPTION ) );
		return is_string( $held ) ? $held : null;
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
