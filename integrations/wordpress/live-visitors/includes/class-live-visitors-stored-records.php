<?php
/**
 * The only readers of what the relay takes back from the database: its state, its budget, its lock.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * `relay/src/store/stored-records.ts` in PHP. Transients and options are shared with other workers,
 * other plugins, an object cache, an operator and a worker whose clock is wrong, so nothing read
 * back is trusted: each reader returns a valid value whose times are bounded against this
 * worker's clock, or nothing.
 */
final class Live_Visitors_Stored_Records {

	public const HOUR_MS = 60 * 60 * 1000;

	/** The relay's own words in a stored failure ("answered 500"): short, unquoted, nothing invisible. */
	private const OWN_WORDS = '/^[^"\\\\`<>\p{Cc}\p{Cf}\x{2028}\x{2029}]{1,200}$/u';
	/** The kinds of failure the element knows: `REALTIME_ERROR_KINDS` (`src/contract/errors.ts`), compared by a test. */
	public const FAILURE_KINDS = array( 'network', 'timeout', 'rate-limited', 'unauthorized', 'not-found', 'bad-request', 'server', 'invalid-response' );
	/** A lock's value: its expiry in milliseconds, then its owner. */
	private const LOCK_VALUE = '/^(\d{1,19})\|([\w-]{1,64})$/';

	/**
	 * The longest any "not before" time can honestly be away: the back-off's cap, a spent budget's hour.
	 *
	 * @param int $interval_ms The interval.
	 */
	public static function max_wait_ms( int $interval_ms ): int {
		return max( self::HOUR_MS, $interval_ms );
	}

	/**
	 * The body the relay stores and serves for a report: the service's three fields, in this order.
	 *
	 * @param array{currentVisitors: int, websiteId: string, timestamp: string} $report A checked report.
	 */
	public static function report_body( array $report ): string {
		$fields = array(
			'currentVisitors' => $report['currentVisitors'],
			'websiteId'       => $report['websiteId'],
			'timestamp'       => $report['timestamp'],
		);
		return (string) json_encode( $fields, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE );
	}

	/**
	 * A website's state as a transient returned it, checked field by field and bounded: null when
	 * it is another website's, damaged, or has an answer fetched in the future (beyond the clock
	 * tolerance: its other times came from the same wrong clock); a back-off or a spent budget is
	 * cut to the longest honest wait.
	 *
	 * @param mixed  $raw         What get_transient returned.
	 * @param string $website_id  The website configured now.
	 * @param int    $now_ms      This worker's clock.
	 * @param int    $interval_ms The interval.
	 * @return array{answer: ?array{body: string, etag: string, fetched_at_ms: int}, failures: int, next_attempt_at_ms: int, failure: ?array{kind: string, status: ?int, reason: string, said: ?string}, budget_room_at_ms: ?int}|null
	 */
	public static function read_state( mixed $raw, string $website_id, int $now_ms, int $interval_ms ): ?array {
		if ( ! is_array( $raw ) || ( $raw['website_id'] ?? null ) !== $website_id ) {
			return null;
		}
		$failures = $raw['failures'] ?? null;
		$next_ms  = $raw['next_attempt_at_ms'] ?? null;
		if ( ! is_int( $failures ) || $failures < 0 || ! is_int( $next_ms ) ) {
			return null;
		}
		$answer  = null === ( $raw['answer'] ?? null ) ? null : self::read_answer( $raw['answer'], $website_id );
		$failure = null === ( $raw['failure'] ?? null ) ? null : self::read_failure( $raw['failure'] );
		if ( false === $answer || false === $failure ) {
			return null;
		}
		if ( null !== $answer && $answer['fetched_at_ms'] > $now_ms + Live_Visitors_Rules::CLOCK_TOLERANCE_MS ) {
			return null;
		}
		$longest_ms = $now_ms + self::max_wait_ms( $interval_ms );
		$room_at_ms = $raw['budget_room_at_ms'] ?? null;
		return array(
			'answer'             => $answer,
			'failures'           => $failures,
			'next_attempt_at_ms' => min( $next_ms, $longest_ms ),
			'failure'            => $failure,
			'budget_room_at_ms'  => is_int( $room_at_ms ) ? min( $room_at_ms, $now_ms + self::HOUR_MS ) : null,
		);
	}

	/**
	 * The times of the rolling hour's upstream requests: whole milliseconds within the last hour;
	 * anything else (a time ahead of the clock tolerance, a string, a damaged option) is dropped.
	 *
	 * @param mixed $raw    What get_option returned.
	 * @param int   $now_ms This worker's clock.
	 * @return array<int>
	 */
	public static function read_budget_times( mixed $raw, int $now_ms ): array {
		if ( ! is_array( $raw ) ) {
			return array();
		}
		$in_hour = fn ( $time ): bool => is_int( $time ) && $time > $now_ms - self::HOUR_MS && $time <= $now_ms + Live_Visitors_Rules::CLOCK_TOLERANCE_MS;
		return array_values( array_filter( $raw, $in_hour ) );
	}

	/**
	 * When the lock's holder lets go at the latest, or null when the lock is nobody's: absent,
	 * unreadable, or claiming more than a lock's life (a stranger's, or a dead worker's whose clock
	 * was ahead), so that it is taken over rather than waited for.
	 *
	 * @param mixed $raw     The lock row's value.
	 * @param int   $now_ms  This worker's clock.
	 * @param int   $life_ms How long a lock lives.
	 */
	public static function read_lock_expiry( mixed $raw, int $now_ms, int $life_ms ): ?int {
		if ( ! is_string( $raw ) || ! preg_match( self::LOCK_VALUE, $raw, $match ) ) {
			return null;
		}
		$expires_ms = (int) $match[1];
		return $expires_ms > $now_ms + $life_ms + Live_Visitors_Rules::CLOCK_TOLERANCE_MS ? null : $expires_ms;
	}

	/**
	 * A stored answer: exactly the body the relay writes for this website (never larger than an
	 * answer it takes from the service), a short ETag, a time; false otherwise.
	 *
	 * @param mixed  $value      The stored answer.
	 * @param string $website_id The website.
	 * @return array{body: string, etag: string, fetched_at_ms: int}|false
	 */
	private static function read_answer( mixed $value, string $website_id ): array|false {
		if ( ! is_array( $value ) ) {
			return false;
		}
		$body = $value['body'] ?? null;
		$etag = $value['etag'] ?? null;
		$time = $value['fetched_at_ms'] ?? null;
		if ( ! is_string( $body ) || ! is_string( $etag ) || ! is_int( $time ) || strlen( $body ) > Live_Visitors_Rules::MAX_UPSTREAM_BODY_BYTES || ! preg_match( '/^"[\w-]{1,64}"$/', $etag ) ) {
			return false;
		}
		$report = json_decode( $body, true, 4 );
		if ( ! is_array( $report ) || null !== Live_Visitors_Upstream::report_problem( $report, $website_id ) || self::report_body( $report ) !== $body ) {
			return false;
		}
		return array(
			'body'          => $body,
			'etag'          => $etag,
			'fetched_at_ms' => $time,
		);
	}

	/**
	 * A stored failure: a known kind, a status or none, the relay's own words (anything else would
	 * reach browsers, so it reads as "failed"), and the service's words for the settings page.
	 *
	 * @param mixed $value The stored failure.
	 * @return array{kind: string, status: ?int, reason: string, said: ?string}|false
	 */
	private static function read_failure( mixed $value ): array|false {
		if ( ! is_array( $value ) || ! in_array( $value['kind'] ?? null, self::FAILURE_KINDS, true ) || ! is_string( $value['reason'] ?? null ) ) {
			return false;
		}
		$status = $value['status'] ?? null;
		if ( null !== $status && ! ( is_int( $status ) && $status >= 0 && $status <= 999 ) ) {
			return false;
		}
		$said = $value['said'] ?? null;
		return array(
			'kind'   => $value['kind'],
			'status' => $status,
			'reason' => preg_match( self::OWN_WORDS, $value['reason'] ) ? $value['reason'] : 'failed',
			'said'   => is_string( $said ) && strlen( $said ) <= Live_Visitors_Rules::MAX_SERVICE_WORDS_LENGTH + 3 ? $said : null,
		);
	}
}
