<?php
/**
 * One upstream request per interval for the whole site, however many PHP workers serve shoppers.
 *
 * @package LiveVisitors
 */

defined( 'ABSPATH' ) || exit;

/**
 * The Node relay's `WebsiteCache` in WordPress's terms: the last good answer and the back-off in a
 * transient (the object cache when the site has one), the hourly budget in another, and a lock
 * in the options table so that one worker asks while the others wait for its answer, boundedly.
 */
final class Live_Visitors_Relay {

	public const STATE_TRANSIENT  = 'live_visitors_state';
	public const BUDGET_TRANSIENT = 'live_visitors_budget';

	private const HOUR_MS = 3600000;
	/** How often a waiting worker looks for the answer another one is fetching. */
	private const POLL_MS = 100;
	/** The lock outlives the upstream request by this much: the holder's reads and writes fit in it. */
	private const LOCK_SLACK_MS = 4000;
	/** The widget's back-off policy (`src/realtime/backoff.ts`). */
	private const MAX_BACKOFF_MS        = 600000;
	private const DEFAULT_RATE_LIMIT_MS = 300000;
	private const MAX_RATE_LIMIT_MS     = 3600000;

	/** @var array<string, mixed> */
	private array $settings;

	/**
	 * @param array<string, mixed> $settings The plugin's settings, complete.
	 */
	public function __construct( array $settings ) {
		$this->settings = $settings;
	}

	public static function now_ms(): int {
		return (int) floor( microtime( true ) * 1000 );
	}

	/**
	 * What to tell a browser now, asking the service first when the answer is due and this worker
	 * wins the lock. Either `['kind' => 'report', 'answer' => …]` or `['kind' => 'unavailable', …]`.
	 *
	 * @return array<string, mixed>
	 */
	public function current(): array {
		$state = $this->read_state( false );
		if ( $this->is_due( $state, self::now_ms() ) ) {
			$lock     = new Live_Visitors_Lock();
			$lifetime = Live_Visitors_Upstream::TIMEOUT_SECONDS * 1000 + self::LOCK_SLACK_MS;
			if ( $lock->acquire( self::now_ms(), $lifetime ) ) {
				try {
					// Another worker may have finished between our read and our lock.
					$state = $this->read_state( true );
					if ( $this->is_due( $state, self::now_ms() ) ) {
						$state = $this->refresh( $state );
					}
				} finally {
					$lock->release();
				}
			} else {
				$state = $this->await_other_worker( $state, $lifetime );
			}
		}
		return $this->outcome( $state, self::now_ms() );
	}

	/** Removes the cached answer (new settings). The budget stays: it counts what the plan was charged. */
	public static function forget_answer(): void {
		delete_transient( self::STATE_TRANSIENT );
	}

	/** Deactivation and uninstall: nothing of the plugin's is left but (on deactivation) its settings. */
	public static function forget_everything(): void {
		delete_transient( self::STATE_TRANSIENT );
		delete_transient( self::BUDGET_TRANSIENT );
		Live_Visitors_Lock::remove();
	}

	/**
	 * The last upstream outcome, for the settings page: when, and what the service said (token redacted).
	 *
	 * @return array<string, mixed>
	 */
	public static function status(): array {
		$relay = new self( Live_Visitors_Settings::get() );
		return $relay->read_state( true );
	}

	/**
	 * Nothing fresh, and neither back-off nor a spent budget stands in the way.
	 *
	 * @param array<string, mixed> $state The website's state.
	 * @param int                  $now_ms Now.
	 */
	private function is_due( array $state, int $now_ms ): bool {
		return ! $this->is_fresh( $state, $now_ms ) && $now_ms >= $state['next_attempt_at_ms'];
	}

	private function is_fresh( array $state, int $now_ms ): bool {
		return null !== $state['answer'] && $now_ms - $state['answer']['fetched_at_ms'] < $this->interval_ms();
	}

	/**
	 * Under the lock: spends one request of the budget and asks the service, or records when the budget has room.
	 *
	 * @param array<string, mixed> $state The website's state.
	 * @return array<string, mixed> The new state, written.
	 */
	private function refresh( array $state ): array {
		$room_at_ms = $this->take_budget( self::now_ms() );
		if ( null !== $room_at_ms ) {
			if ( null === $state['budget_room_at_ms'] ) {
				$this->log( sprintf( 'hourly budget of %d upstream requests spent; no request to the analytics service for %d s. Raise the interval, or the hourly limit if the plan allows.', $this->settings['hourly_budget'], self::seconds( $room_at_ms - self::now_ms() ) ) );
			}
			$state['budget_room_at_ms']  = $room_at_ms;
			$state['next_attempt_at_ms'] = max( $state['next_attempt_at_ms'], $room_at_ms );
			$this->write_state( $state );
			return $state;
		}
		$state  = $this->ask_upstream( $state );
		$this->write_state( $state );
		return $state;
	}

	/**
	 * Asks the service once and folds the result into the state, as the Node relay does.
	 *
	 * @param array<string, mixed> $previous The state before.
	 * @return array<string, mixed>
	 */
	private function ask_upstream( array $previous ): array {
		$result = Live_Visitors_Upstream::fetch( $this->settings );
		$now_ms = self::now_ms();
		if ( isset( $result['report'] ) ) {
			$body = (string) wp_json_encode( $result['report'], JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE );
			if ( $previous['failures'] > 0 ) {
				$this->log( sprintf( 'the analytics service answers again, after %d failed request(s)', $previous['failures'] ) );
			}
			return array(
				'website_id'         => $this->settings['website_id'],
				'answer'             => array(
					'body'          => $body,
					// The Node relay's ETag: the first 64 bits of the body's SHA-256.
					'etag'          => '"' . substr( hash( 'sha256', $body ), 0, 16 ) . '"',
					'fetched_at_ms' => $now_ms,
				),
				'failures'           => 0,
				'next_attempt_at_ms' => $now_ms + $this->interval_ms(),
				'failure'            => null,
				'budget_room_at_ms'  => null,
			);
		}
		$failure  = $result['failure'];
		$failures = $previous['failures'] + 1;
		$wait_ms  = $this->retry_delay( $failure['kind'], $failure['retry_after_ms'], $failures );
		$answer   = $previous['answer'];
		$fallback = null !== $answer && $now_ms - $answer['fetched_at_ms'] < $this->max_stale_ms()
			? sprintf( 'serving the answer from %d s ago', self::seconds( $now_ms - $answer['fetched_at_ms'] ) )
			: 'no answer to fall back on';
		$this->log( sprintf( 'the analytics service %s; %s; next attempt in %d s (failure %d in a row)', $failure['reason'], $fallback, self::seconds( $wait_ms ), $failures ) );
		return array_merge(
			$previous,
			array(
				'failures'           => $failures,
				'next_attempt_at_ms' => $now_ms + $wait_ms,
				'failure'            => array(
					'kind'    => $failure['kind'],
					'summary' => $failure['summary'],
					'reason'  => Live_Visitors_Upstream::redact( $failure['reason'], $this->settings['token'] ),
				),
				'budget_room_at_ms'  => null,
			)
		);
	}

	/**
	 * Never sooner than the interval; 2, 4, 8… intervals with jitter that only shortens, capped; a 429's wait honoured.
	 *
	 * @param string   $kind           The failure's kind.
	 * @param int|null $retry_after_ms What the service asked for.
	 * @param int      $failures       Failures in a row, this one included.
	 */
	private function retry_delay( string $kind, ?int $retry_after_ms, int $failures ): int {
		$interval_ms = $this->interval_ms();
		$random      = wp_rand( 0, 1000000 ) / 1000001;
		if ( 'rate-limited' === $kind ) {
			$asked = $retry_after_ms ?? self::DEFAULT_RATE_LIMIT_MS;
			return (int) min( max( self::MAX_RATE_LIMIT_MS, $interval_ms ), max( $interval_ms, $asked ) * ( 1 + 0.1 * $random ) );
		}
		$cap  = max( self::MAX_BACKOFF_MS, $interval_ms );
		$step = min( $cap, $interval_ms * 2 ** max( 1, min( $failures, 30 ) ) );
		return (int) max( $interval_ms, $step * ( 1 - 0.25 * $random ) );
	}

	/**
	 * Another worker holds the lock: its answer (or its failure) reaches the transient within the lock's life.
	 *
	 * @param array<string, mixed> $seen        The state this worker read.
	 * @param int                  $lifetime_ms The lock's life.
	 * @return array<string, mixed>
	 */
	private function await_other_worker( array $seen, int $lifetime_ms ): array {
		$give_up_at_ms = self::now_ms() + $lifetime_ms;
		$state         = $seen;
		while ( self::now_ms() < $give_up_at_ms ) {
			usleep( self::POLL_MS * 1000 );
			$state = $this->read_state( true );
			if ( ( $state['answer']['fetched_at_ms'] ?? null ) !== ( $seen['answer']['fetched_at_ms'] ?? null ) || $state['next_attempt_at_ms'] !== $seen['next_attempt_at_ms'] ) {
				break;
			}
		}
		return $state;
	}

	/**
	 * The answer while it is younger than maxStale, else an honest error that never quotes the service.
	 *
	 * @param array<string, mixed> $state  The website's state.
	 * @param int                  $now_ms Now.
	 * @return array<string, mixed>
	 */
	private function outcome( array $state, int $now_ms ): array {
		$answer = $state['answer'];
		if ( null !== $answer && $now_ms - $answer['fetched_at_ms'] < $this->max_stale_ms() ) {
			return array(
				'kind'   => 'report',
				'answer' => $answer,
				'age_ms' => $now_ms - $answer['fetched_at_ms'],
			);
		}
		$retry_at_ms = max( $now_ms + 1000, $state['next_attempt_at_ms'] );
		$fallback    = sprintf( 'the site holds no count younger than %d s; it asks again in %d s', $this->settings['max_stale'], self::seconds( $retry_at_ms - $now_ms ) );
		$failure     = $state['failure'];
		if ( null !== $failure ) {
			$statuses = array(
				'timeout'      => 504,
				'rate-limited' => 503,
			);
			return $this->unavailable( $statuses[ $failure['kind'] ] ?? 502, "The analytics service {$failure['summary']}; $fallback.", $retry_at_ms );
		}
		if ( null !== $state['budget_room_at_ms'] ) {
			return $this->unavailable( 503, sprintf( 'The site\'s hourly budget of %d requests to the analytics service is spent; %s.', $this->settings['hourly_budget'], $fallback ), $retry_at_ms );
		}
		// Another worker's request outlived its lock: nothing to say yet but when to ask again.
		return $this->unavailable( 503, "The analytics service has not answered yet; $fallback.", $retry_at_ms );
	}

	private function unavailable( int $status, string $message, int $retry_at_ms ): array {
		return array(
			'kind'        => 'unavailable',
			'status'      => $status,
			'message'     => $message,
			'retry_at_ms' => $retry_at_ms,
		);
	}

	/**
	 * Counts this request in the rolling hour, or says when there will be room (null: taken).
	 *
	 * @param int $now_ms Now.
	 */
	private function take_budget( int $now_ms ): ?int {
		$this->forget_local_copy( self::BUDGET_TRANSIENT );
		$stored = get_transient( self::BUDGET_TRANSIENT );
		$times  = array_values(
			array_filter(
				is_array( $stored ) ? $stored : array(),
				fn ( $time ) => is_int( $time ) && $time > $now_ms - self::HOUR_MS && $time <= $now_ms
			)
		);
		if ( count( $times ) >= $this->settings['hourly_budget'] ) {
			sort( $times );
			return $times[ count( $times ) - $this->settings['hourly_budget'] ] + self::HOUR_MS;
		}
		$times[] = $now_ms;
		set_transient( self::BUDGET_TRANSIENT, $times, HOUR_IN_SECONDS + 60 );
		return null;
	}

	/**
	 * The website's state from the transient, checked field by field: anything else (another
	 * website's, a damaged value) reads as nothing yet.
	 *
	 * @param bool $fresh Read past this request's own copy (while waiting for another worker).
	 * @return array<string, mixed>
	 */
	private function read_state( bool $fresh ): array {
		$nothing = array(
			'website_id'         => $this->settings['website_id'],
			'answer'             => null,
			'failures'           => 0,
			'next_attempt_at_ms' => 0,
			'failure'            => null,
			'budget_room_at_ms'  => null,
		);
		if ( $fresh ) {
			$this->forget_local_copy( self::STATE_TRANSIENT );
		}
		$stored = get_transient( self::STATE_TRANSIENT );
		if ( ! is_array( $stored ) || ( $stored['website_id'] ?? null ) !== $this->settings['website_id'] ) {
			return $nothing;
		}
		$answer = $stored['answer'] ?? null;
		if ( null !== $answer && ! ( is_array( $answer ) && is_string( $answer['body'] ?? null ) && is_string( $answer['etag'] ?? null ) && is_int( $answer['fetched_at_ms'] ?? null ) ) ) {
			return $nothing;
		}
		$failure = $stored['failure'] ?? null;
		if ( null !== $failure && ! ( is_array( $failure ) && is_string( $failure['kind'] ?? null ) && is_string( $failure['summary'] ?? null ) && is_string( $failure['reason'] ?? null ) ) ) {
			$failure = null;
		}
		return array(
			'website_id'         => $this->settings['website_id'],
			'answer'             => $answer,
			'failures'           => is_int( $stored['failures'] ?? null ) ? max( 0, $stored['failures'] ) : 0,
			'next_attempt_at_ms' => is_int( $stored['next_attempt_at_ms'] ?? null ) ? $stored['next_attempt_at_ms'] : 0,
			'failure'            => $failure,
			'budget_room_at_ms'  => is_int( $stored['budget_room_at_ms'] ?? null ) ? $stored['budget_room_at_ms'] : null,
		);
	}

	/**
	 * Kept as long as its answer may be served, and past its back-off.
	 *
	 * @param array<string, mixed> $state The state to store.
	 */
	private function write_state( array $state ): void {
		$now_ms        = self::now_ms();
		$served_until  = null === $state['answer'] ? $now_ms : $state['answer']['fetched_at_ms'] + $this->max_stale_ms();
		$keep_ms       = max( $served_until, $state['next_attempt_at_ms'], $now_ms ) - $now_ms + $this->interval_ms();
		set_transient( self::STATE_TRANSIENT, $state, max( 1, self::seconds( $keep_ms ) ) );
	}

	/**
	 * Makes the next read of a transient go to where every worker writes it, not to this request's copy.
	 *
	 * @param string $transient The transient's name.
	 */
	private function forget_local_copy( string $transient ): void {
		if ( wp_using_ext_object_cache() ) {
			// A persistent object cache: ask it past its in-request layer (most of them read `$force`).
			wp_cache_get( $transient, 'transient', true );
			return;
		}
		$names = array( "_transient_$transient", "_transient_timeout_$transient" );
		foreach ( $names as $name ) {
			wp_cache_delete( $name, 'options' );
		}
		$missing = wp_cache_get( 'notoptions', 'options' );
		if ( is_array( $missing ) ) {
			wp_cache_set( 'notoptions', array_diff_key( $missing, array_flip( $names ) ), 'options' );
		}
	}

	private function interval_ms(): int {
		return $this->settings['interval'] * 1000;
	}

	private function max_stale_ms(): int {
		return $this->settings['max_stale'] * 1000;
	}

	private static function seconds( int|float $ms ): int {
		return (int) max( 0, ceil( $ms / 1000 ) );
	}

	/**
	 * One line per event, never per request, never with the token.
	 *
	 * @param string $text What happened.
	 */
	private function log( string $text ): void {
		// phpcs:ignore Generic.PHP.ForbiddenFunctions -- the log is where a site owner looks for this.
		error_log( Live_Visitors_Upstream::redact( sprintf( '[live-visitors] website "%s": %s', $this->settings['website_id'], $text ), $this->settings['token'] ) );
	}
}
