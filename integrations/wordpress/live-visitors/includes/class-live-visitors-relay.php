<?php
/**
 * One upstream request per interval for the whole site, however many PHP workers serve shoppers.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The Node relay's `WebsiteCache` in WordPress's terms: its decisions (is the answer due, who
 * asks, how long to back off, what a browser is told). What every worker shares is kept by
 * `Live_Visitors_State_Store`; one worker at a time asks, under `Live_Visitors_Lock`, while the
 * others wait for its answer as long as the Node relay lets a browser wait.
 */
final class Live_Visitors_Relay {

	/** How long a browser's request may wait for another worker's: the Node relay's bound (6.5 s by default). */
	public const BROWSER_WAIT_MS = Live_Visitors_Rules::UPSTREAM_TIMEOUT_MS + Live_Visitors_Rules::BROWSER_WAIT_SLACK_MS;

	/** @var array<string, mixed> */
	private array $settings;
	private Live_Visitors_State_Store $store;
	private Live_Visitors_Redactor $redactor;

	/**
	 * @param array<string, mixed> $settings The plugin's settings, complete.
	 */
	public function __construct( array $settings ) {
		$this->settings = $settings;
		$this->store    = new Live_Visitors_State_Store( $settings['website_id'], $this->interval_ms(), $this->max_stale_ms() );
		$this->redactor = Live_Visitors_Redactor::for_token( $settings['token'] );
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
		$state = $this->store->read( false, self::now_ms() );
		if ( $this->is_due( $state, self::now_ms() ) ) {
			$lock  = new Live_Visitors_Lock();
			$state = $lock->acquire( self::now_ms() ) ? $this->refresh_holding( $lock ) : $this->await_other_worker( $state, $lock );
		}
		return $this->outcome( $state, self::now_ms() );
	}

	/**
	 * The last upstream outcome as the settings page shows it: the answer and when, the failure in
	 * the plugin's words and the service's (token redacted).
	 *
	 * @return array<string, mixed>
	 */
	public static function last_outcome(): array {
		$relay = new self( Live_Visitors_Settings::get() );
		return $relay->store->read( true, self::now_ms() );
	}

	/**
	 * Nothing fresh, and neither back-off nor a spent budget stands in the way.
	 *
	 * @param array<string, mixed> $state  The website's state.
	 * @param int                  $now_ms Now.
	 */
	private function is_due( array $state, int $now_ms ): bool {
		return ! $this->is_fresh( $state, $now_ms ) && $now_ms >= $state['next_attempt_at_ms'];
	}

	private function is_fresh( array $state, int $now_ms ): bool {
		return null !== $state['answer'] && $now_ms - $state['answer']['fetched_at_ms'] < $this->interval_ms();
	}

	/**
	 * Holding the lock: asks when the answer is still due (another worker may have finished
	 * between our read and our lock), then lets go.
	 *
	 * @param Live_Visitors_Lock $lock The lock, held.
	 * @return array<string, mixed>
	 */
	private function refresh_holding( Live_Visitors_Lock $lock ): array {
		try {
			$state = $this->store->read( true, self::now_ms() );
			return $this->is_due( $state, self::now_ms() ) ? $this->refresh( $state ) : $state;
		} finally {
			$lock->release();
		}
	}

	/**
	 * Under the lock: spends one request of the budget and asks the service, or records when the budget has room.
	 *
	 * @param array<string, mixed> $state The website's state.
	 * @return array<string, mixed> The new state, written.
	 */
	private function refresh( array $state ): array {
		$room_at_ms = $this->store->take_budget( self::now_ms(), $this->settings['hourly_budget'] );
		if ( null !== $room_at_ms ) {
			if ( null === $state['budget_room_at_ms'] ) {
				$this->log( sprintf( 'hourly budget of %d upstream requests spent; no request to the analytics service for %d s. Raise the interval, or the hourly limit if the plan allows.', $this->settings['hourly_budget'], self::seconds( $room_at_ms - self::now_ms() ) ) );
			}
			$state['budget_room_at_ms']  = $room_at_ms;
			$state['next_attempt_at_ms'] = max( $state['next_attempt_at_ms'], $room_at_ms );
		} else {
			$state = $this->ask_upstream( $state );
		}
		$this->store->write( $state, self::now_ms() );
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
			$body = Live_Visitors_Stored_Records::report_body( $result['report'] );
			if ( $previous['failures'] > 0 ) {
				$this->log( sprintf( 'the analytics service answers again, after %d failed request(s)', $previous['failures'] ) );
			}
			return array(
				'answer'             => array(
					'body'          => $body,
					'etag'          => self::etag_for( $body ),
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
		// In [0, 1), as the contract's back-off takes it.
		$random   = random_int( 0, PHP_INT_MAX - 1 ) / PHP_INT_MAX;
		$wait_ms  = self::retry_delay( $failure['kind'], $failure['retry_after_ms'], $failures, $this->interval_ms(), $random );
		$answer   = $previous['answer'];
		$fallback = null !== $answer && $now_ms - $answer['fetched_at_ms'] < $this->max_stale_ms()
			? sprintf( 'serving the answer from %d s ago', self::seconds( $now_ms - $answer['fetched_at_ms'] ) )
			: 'no answer to fall back on';
		$said     = null === $failure['said'] ? '' : sprintf( '; it said "%s"', $failure['said'] );
		$this->log( sprintf( 'the analytics service %s%s; %s; next attempt in %d s (failure %d in a row)', $failure['reason'], $said, $fallback, self::seconds( $wait_ms ), $failures ) );
		return array_merge(
			$previous,
			array(
				'failures'           => $failures,
				'next_attempt_at_ms' => $now_ms + $wait_ms,
				'failure'            => array(
					'kind'   => $failure['kind'],
					'status' => $failure['status'],
					'reason' => $failure['reason'],
					'said'   => $failure['said'],
				),
				'budget_room_at_ms'  => null,
			)
		);
	}

	/**
	 * The Node relay's ETag (`etagFor` in `relay/src/responses.ts`): strong, the first 64 bits of the body's SHA-256.
	 *
	 * @param string $body The answer's body.
	 */
	public static function etag_for( string $body ): string {
		return '"' . substr( hash( 'sha256', $body ), 0, 16 ) . '"';
	}

	/**
	 * The contract's back-off (`retryDelay` in `src/contract/backoff.ts`): never sooner than the
	 * interval; 2, 4, 8… intervals with jitter that only shortens, capped; a 429's wait honoured,
	 * with a little spread.
	 *
	 * @param string   $kind           The failure's kind.
	 * @param int|null $retry_after_ms What the service asked for.
	 * @param int      $failures       Failures in a row, this one included.
	 * @param int      $interval_ms    The interval.
	 * @param float    $random         In [0, 1): where the jitter falls.
	 */
	public static function retry_delay( string $kind, ?int $retry_after_ms, int $failures, int $interval_ms, float $random ): int {
		if ( 'rate-limited' === $kind ) {
			$asked   = $retry_after_ms ?? Live_Visitors_Rules::DEFAULT_RATE_LIMIT_WAIT_MS;
			$ceiling = max( Live_Visitors_Rules::MAX_RATE_LIMIT_WAIT_MS, $interval_ms );
			return (int) min( $ceiling, max( $interval_ms, $asked ) * ( 1 + Live_Visitors_Rules::RATE_LIMIT_JITTER * $random ) );
		}
		$cap  = max( Live_Visitors_Rules::MAX_BACKOFF_MS, $interval_ms );
		$step = min( $cap, $interval_ms * Live_Visitors_Rules::BACKOFF_FACTOR ** max( 1, min( $failures, 30 ) ) );
		return (int) max( $interval_ms, $step * ( 1 - Live_Visitors_Rules::BACKOFF_JITTER * $random ) );
	}

	/**
	 * Another worker holds the lock: its answer (or its failure) reaches the transient within the
	 * browser's wait, else the browser hears that the site is still waiting. Each look also tries
	 * the lock, so a released or lapsed one is taken at once. Once a worker has waited a whole
	 * browser's wait on a lock in vain, no other waits on that same lock: PHP workers are few, and
	 * a hung request must not hold them all.
	 *
	 * @param array<string, mixed> $seen The state this worker read.
	 * @param Live_Visitors_Lock   $lock This worker's lock, not held.
	 * @return array<string, mixed>
	 */
	private function await_other_worker( array $seen, Live_Visitors_Lock $lock ): array {
		$waited_on = Live_Visitors_Lock::held_value();
		if ( null !== $waited_on && $this->store->waited_in_vain_on( $waited_on ) ) {
			return $seen;
		}
		$give_up_at_ms = self::now_ms() + self::BROWSER_WAIT_MS;
		$state         = $seen;
		while ( self::now_ms() < $give_up_at_ms ) {
			usleep( 1000 * (int) min( Live_Visitors_Rules::STORE_POLL_MS, max( 1, $give_up_at_ms - self::now_ms() ) ) );
			$state = $this->store->read( true, self::now_ms() );
			if ( ( $state['answer']['fetched_at_ms'] ?? null ) !== ( $seen['answer']['fetched_at_ms'] ?? null ) || $state['next_attempt_at_ms'] !== $seen['next_attempt_at_ms'] ) {
				return $state;
			}
			if ( $lock->acquire( self::now_ms() ) ) {
				return $this->refresh_holding( $lock );
			}
		}
		if ( null !== $waited_on && Live_Visitors_Lock::held_value() === $waited_on ) {
			$this->store->record_wait_in_vain( $waited_on );
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
				'age_ms' => max( 0, $now_ms - $answer['fetched_at_ms'] ),
			);
		}
		$retry_at_ms = max( $now_ms + Live_Visitors_Rules::STORE_RETRY_MS, $state['next_attempt_at_ms'] );
		$fallback    = sprintf( 'the site holds no count younger than %d s; it asks again in %d s', $this->settings['max_stale'], self::seconds( $retry_at_ms - $now_ms ) );
		$failure     = $state['failure'];
		if ( null !== $failure ) {
			$statuses = array(
				'timeout'      => 504,
				'rate-limited' => 503,
			);
			return $this->unavailable( $statuses[ $failure['kind'] ] ?? 502, "The analytics service {$failure['reason']}; $fallback.", $retry_at_ms );
		}
		if ( null !== $state['budget_room_at_ms'] ) {
			return $this->unavailable( 503, sprintf( 'The site\'s hourly budget of %d requests to the analytics service is spent; %s.', $this->settings['hourly_budget'], $fallback ), $retry_at_ms );
		}
		// Another worker's request outlived the browser's wait: nothing to say yet but when to ask again.
		return $this->unavailable( 503, "The site is still waiting for the analytics service; $fallback.", $retry_at_ms );
	}

	private function unavailable( int $status, string $message, int $retry_at_ms ): array {
		return array(
			'kind'        => 'unavailable',
			'status'      => $status,
			'message'     => $message,
			'retry_at_ms' => $retry_at_ms,
		);
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
		error_log( $this->redactor->clean( sprintf( '[live-visitors] website "%s": %s', $this->settings['website_id'], $text ) ) );
	}
}
