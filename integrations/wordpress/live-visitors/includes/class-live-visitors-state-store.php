<?php
/**
 * Where the relay keeps what every PHP worker of the site shares: the last answer, the budget, the lock.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The relay's state in WordPress's stores, as `relay/src/store/` is in TypeScript: the last good
 * answer and the back-off in a transient (the object cache when the site has one: losing it costs
 * one request), the rolling hour's requests in an option (an evicted transient must never let more
 * requests through than the plan allows), the lock in the options table (`Live_Visitors_Lock`).
 * Everything read back goes through `Live_Visitors_Stored_Records`.
 */
final class Live_Visitors_State_Store {

	public const STATE_TRANSIENT = 'live_visitors_state';
	public const BUDGET_OPTION   = 'live_visitors_budget';
	/** The lock a worker waited on for a whole browser's wait without news: nobody waits on it again. */
	public const FRUITLESS_WAIT_OPTION = 'live_visitors_fruitless_wait';
	/** Where the budget lived in 0.1.0: read while the option is not there yet, removed on uninstall and deactivation. */
	private const OLD_BUDGET_TRANSIENT = 'live_visitors_budget';

	public function __construct( private string $website_id, private int $interval_ms, private int $max_stale_ms ) {
	}

	/**
	 * The website's state: what another worker wrote, bounded, or nothing yet.
	 *
	 * @param bool $past_local_copy Read past this request's own copy (while waiting for another worker).
	 * @param int  $now_ms          Now.
	 * @return array{answer: ?array{body: string, etag: string, fetched_at_ms: int}, failures: int, next_attempt_at_ms: int, failure: ?array{kind: string, status: ?int, reason: string, said: ?string}, budget_room_at_ms: ?int}
	 */
	public function read( bool $past_local_copy, int $now_ms ): array {
		if ( $past_local_copy ) {
			self::forget_local_copy( '_transient_' . self::STATE_TRANSIENT, '_transient_timeout_' . self::STATE_TRANSIENT );
		}
		return Live_Visitors_Stored_Records::read_state( get_transient( self::STATE_TRANSIENT ), $this->website_id, $now_ms, $this->interval_ms ) ?? array(
			'answer'             => null,
			'failures'           => 0,
			'next_attempt_at_ms' => 0,
			'failure'            => null,
			'budget_room_at_ms'  => null,
		);
	}

	/**
	 * Kept as long as its answer may be served, and past its back-off.
	 *
	 * @param array<string, mixed> $state  The state to store.
	 * @param int                  $now_ms Now.
	 */
	public function write( array $state, int $now_ms ): void {
		$served_until = null === $state['answer'] ? $now_ms : $state['answer']['fetched_at_ms'] + $this->max_stale_ms;
		$keep_ms      = max( $served_until, $state['next_attempt_at_ms'], $now_ms ) - $now_ms + $this->interval_ms;
		set_transient( self::STATE_TRANSIENT, array( 'website_id' => $this->website_id ) + $state, max( 1, (int) ceil( $keep_ms / 1000 ) ) );
	}

	/**
	 * Counts one request in the rolling hour, or says when there will be room (null: counted).
	 * Called under the lock, so no two workers count at once.
	 *
	 * @param int $now_ms        Now.
	 * @param int $hourly_budget Requests allowed in any hour.
	 */
	public function take_budget( int $now_ms, int $hourly_budget ): ?int {
		self::forget_local_copy( self::BUDGET_OPTION );
		$stored = get_option( self::BUDGET_OPTION, null );
		// A site updated from 0.1.0 counts the hour's requests it made while the budget was a transient.
		$times = Live_Visitors_Stored_Records::read_budget_times( $stored ?? get_transient( self::OLD_BUDGET_TRANSIENT ), $now_ms );
		if ( count( $times ) >= $hourly_budget ) {
			sort( $times );
			return $times[ count( $times ) - $hourly_budget ] + Live_Visitors_Stored_Records::HOUR_MS;
		}
		$times[] = $now_ms;
		// Not autoloaded: only the lock's holder reads it.
		update_option( self::BUDGET_OPTION, $times, false );
		return null;
	}

	/**
	 * Whether a worker already waited a whole browser's wait on this lock (its row's value) in vain.
	 *
	 * @param string $lock_value The lock row's value.
	 */
	public function waited_in_vain_on( string $lock_value ): bool {
		self::forget_local_copy( self::FRUITLESS_WAIT_OPTION );
		return get_option( self::FRUITLESS_WAIT_OPTION ) === $lock_value;
	}

	/**
	 * Says that this lock brought no news within a browser's wait, so that the next browsers hear
	 * so at once until another worker holds the lock (the Node relay's "waited once already").
	 *
	 * @param string $lock_value The lock row's value.
	 */
	public function record_wait_in_vain( string $lock_value ): void {
		update_option( self::FRUITLESS_WAIT_OPTION, $lock_value, false );
	}

	/** Removes the cached answer (new settings). The budget stays: it counts what the plan was charged. */
	public static function forget_answer(): void {
		delete_transient( self::STATE_TRANSIENT );
	}

	/** Deactivation and uninstall: nothing of the relay's is left. */
	public static function forget_everything(): void {
		delete_transient( self::STATE_TRANSIENT );
		delete_transient( self::OLD_BUDGET_TRANSIENT );
		delete_option( self::BUDGET_OPTION );
		delete_option( self::FRUITLESS_WAIT_OPTION );
		Live_Visitors_Lock::remove();
	}

	/**
	 * Makes the next read of these options go to where every worker writes them, not to this request's copy.
	 *
	 * @param string ...$names Option names (a transient's are `_transient_…` and `_transient_timeout_…`).
	 */
	private static function forget_local_copy( string ...$names ): void {
		if ( wp_using_ext_object_cache() && str_starts_with( $names[0], '_transient_' ) ) {
			// A persistent object cache holds transients itself: ask it past its in-request layer (most of them read `$force`).
			wp_cache_get( substr( $names[0], strlen( '_transient_' ) ), 'transient', true );
			return;
		}
		foreach ( $names as $name ) {
			wp_cache_delete( $name, 'options' );
		}
		$missing = wp_cache_get( 'notoptions', 'options' );
		if ( is_array( $missing ) ) {
			wp_cache_set( 'notoptions', array_diff_key( $missing, array_flip( $names ) ), 'options' );
		}
	}
}
