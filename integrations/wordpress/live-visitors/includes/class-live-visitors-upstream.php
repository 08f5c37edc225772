<?php
/**
 * The one request to the analytics service: the token goes only into its Authorization header.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Asks the service for the website's report and reads the answer as the Node relay does
 * (`relay/src/upstream.ts`): only a report that passes the widget's own checks comes back. A
 * failure's `reason` is the plugin's own words (what happened and what to fix); `said` is the
 * service's, token redacted, for the log and the settings page only.
 */
final class Live_Visitors_Upstream {

	/** The service's report timestamp: ISO 8601 UTC with milliseconds, as the element accepts it. */
	private const TIMESTAMP_SYNTAX = '/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/';
	private const MAX_SAFE_INTEGER = 9007199254740991;

	/**
	 * Asks once; never throws.
	 *
	 * @param array<string, mixed> $settings The plugin's settings.
	 * @return array{report: array{currentVisitors: int, websiteId: string, timestamp: string}}|array{failure: array{kind: string, status: ?int, retry_after_ms: ?int, reason: string, said: ?string}}
	 */
	public static function fetch( array $settings ): array {
		$max_bytes = Live_Visitors_Rules::MAX_UPSTREAM_BODY_BYTES;
		$url      = $settings['base_url'] . Live_Visitors_Rules::REALTIME_PATH . '?' . http_build_query( array( 'websiteId' => $settings['website_id'] ), '', '&', PHP_QUERY_RFC3986 );
		$response = wp_remote_get(
			$url,
			array(
				// Shorter than the element's own timeout, so a browser gets the stale answer rather than its own timeout.
				'timeout'             => Live_Visitors_Rules::UPSTREAM_TIMEOUT_MS / 1000,
				// A redirect elsewhere would carry the token along: a 3xx is a failure.
				'redirection'         => 0,
				// One byte over the limit tells a large answer from one that just fits.
				'limit_response_size' => $max_bytes + 1,
				'headers'             => array(
					// The only place the token ever goes.
					'Authorization' => 'Bearer ' . $settings['token'],
					'Accept'        => 'application/json',
				),
			)
		);
		if ( is_wp_error( $response ) ) {
			return array( 'failure' => self::transport_failure( $response ) );
		}
		$status = (int) wp_remote_retrieve_response_code( $response );
		$body   = (string) wp_remote_retrieve_body( $response );
		if ( strlen( $body ) > $max_bytes ) {
			return self::invalid( $status, sprintf( 'sent an answer larger than %d KB', $max_bytes / 1024 ) );
		}
		if ( $status < 200 || $status > 299 ) {
			return array( 'failure' => self::status_failure( $status, $response, $body, Live_Visitors_Redactor::for_token( $settings['token'] ) ) );
		}
		$json = json_decode( $body, true, 8 );
		if ( ! is_array( $json ) ) {
			return self::invalid( $status, 'sent a body that is not a JSON object' );
		}
		$problem = self::report_problem( $json, $settings['website_id'] );
		if ( null !== $problem ) {
			return self::invalid( $status, 'sent an invalid report: ' . $problem );
		}
		return array(
			'report' => array(
				'currentVisitors' => self::whole_number( $json['currentVisitors'] ),
				'websiteId'       => $json['websiteId'],
				'timestamp'       => $json['timestamp'],
			),
		);
	}

	/**
	 * What is wrong with a parsed answer, or null for a report (the contract's `parseReport`).
	 *
	 * @param array<mixed> $json       The decoded body.
	 * @param string       $website_id The website asked for.
	 */
	public static function report_problem( array $json, string $website_id ): ?string {
		$count = self::whole_number( $json['currentVisitors'] ?? null );
		if ( null === $count || $count < 0 || $count > self::MAX_SAFE_INTEGER ) {
			return 'currentVisitors is not a whole number ≥ 0';
		}
		if ( ( $json['websiteId'] ?? null ) !== $website_id ) {
			return 'websiteId is not the one asked for';
		}
		$timestamp = $json['timestamp'] ?? null;
		if ( ! is_string( $timestamp ) || ! self::is_iso_utc_millis( $timestamp ) ) {
			return 'timestamp is not like 2026-01-31T12:00:00.000Z';
		}
		return null;
	}

	/**
	 * A JSON number that is whole, as an integer: JSON has one kind of number, so `42.0` and `1e2`
	 * are whole too (as `parseReport` reads them); null for anything else.
	 *
	 * @param mixed $value A decoded JSON value.
	 */
	private static function whole_number( $value ): ?int {
		if ( is_float( $value ) && floor( $value ) === $value && abs( $value ) <= self::MAX_SAFE_INTEGER ) {
			return (int) $value;
		}
		return is_int( $value ) ? $value : null;
	}

	/**
	 * A real instant in exactly the form the element accepts (`2026-02-30T…` is well-formed but no date).
	 *
	 * @param string $value A timestamp from the service.
	 */
	public static function is_iso_utc_millis( string $value ): bool {
		if ( ! preg_match( self::TIMESTAMP_SYNTAX, $value ) ) {
			return false;
		}
		$time = DateTimeImmutable::createFromFormat( 'Y-m-d\TH:i:s.v\Z', $value, new DateTimeZone( 'UTC' ) );
		return false !== $time && $time->format( 'Y-m-d\TH:i:s.v\Z' ) === $value;
	}

	/**
	 * No answer: a timeout, or the service could not be reached (only cURL's error number is kept).
	 *
	 * @param WP_Error $error What the HTTP API said.
	 */
	private static function transport_failure( WP_Error $error ): array {
		$message = $error->get_error_message();
		$code    = preg_match( '/cURL error (\d+)/', $message, $match ) ? (int) $match[1] : null;
		if ( 28 === $code || false !== stripos( $message, 'timed out' ) ) {
			return self::failure( 'timeout', null, null, sprintf( 'did not answer within %d s', Live_Visitors_Rules::UPSTREAM_TIMEOUT_MS / 1000 ), null );
		}
		return self::failure( 'network', null, null, 'could not be reached' . ( null === $code ? '' : " (cURL error $code)" ), null );
	}

	private static function invalid( int $status, string $reason ): array {
		return array( 'failure' => self::failure( 'invalid-response', $status, null, $reason, null ) );
	}

	/**
	 * A status that is not 2xx, with what to fix in the plugin's words, and the service's own words apart.
	 *
	 * @param int                    $status   The HTTP status.
	 * @param array<string, mixed>   $response The HTTP API's response.
	 * @param string                 $body     The body.
	 * @param Live_Visitors_Redactor $redactor Takes the token out of the service's words.
	 */
	private static function status_failure( int $status, array $response, string $body, Live_Visitors_Redactor $redactor ): array {
		$kind  = self::kind_for_status( $status );
		$text  = self::service_words( $body, (string) wp_remote_retrieve_header( $response, 'content-type' ) );
		$wait  = 'rate-limited' === $kind ? self::retry_after_ms( (string) wp_remote_retrieve_header( $response, 'retry-after' ), (string) wp_remote_retrieve_header( $response, 'date' ), Live_Visitors_Relay::now_ms() ) : null;
		$fixes = array(
			'unauthorized' => ': check the API token in Settings → Live visitors',
			'not-found'    => ': check the website ID in Settings → Live visitors',
			'rate-limited' => ': the plan\'s hourly limit is used up',
		);
		$fix   = $status >= 300 && $status < 400 ? ': set the service base URL to the final address, the plugin does not follow redirects' : ( $fixes[ $kind ] ?? '' );
		return self::failure( $kind, $status, $wait, "answered $status$fix", null === $text ? null : $redactor->words( $text ) );
	}

	/**
	 * What an answer's status (not 2xx) means: the contract's `errorKindForStatus`.
	 *
	 * @param int $status The HTTP status.
	 */
	public static function kind_for_status( int $status ): string {
		if ( 401 === $status || 403 === $status ) {
			return 'unauthorized';
		}
		$kinds = array(
			400 => 'bad-request',
			404 => 'not-found',
			429 => 'rate-limited',
		);
		return $kinds[ $status ] ?? ( $status >= 500 ? 'server' : 'invalid-response' );
	}

	/**
	 * `Retry-After` as delay-seconds or an HTTP date, in milliseconds, at most a day (the contract's
	 * `parseRetryAfter`); null when absent or unreadable.
	 *
	 * @param string $retry_after The Retry-After header ('' when absent).
	 * @param string $date        The answer's Date header ('' when absent).
	 * @param int    $now_ms      Now, for a date without a Date header.
	 */
	public static function retry_after_ms( string $retry_after, string $date, int $now_ms ): ?int {
		$value      = trim( $retry_after );
		$ceiling_ms = Live_Visitors_Rules::DAY_CEILING_MS;
		if ( preg_match( '/^\d+$/', $value ) ) {
			// As a float: delay-seconds of any length is a wait past a day, never an integer overflow.
			return (int) min( (float) $value * 1000, $ceiling_ms );
		}
		$at = self::http_date_ms( $value );
		return null === $at ? null : min( max( 0, $at - ( self::http_date_ms( $date ) ?? $now_ms ) ), $ceiling_ms );
	}

	/**
	 * An HTTP date in the one form senders write, in milliseconds, or null (the contract's
	 * `httpDate`): not `strtotime`, which reads "tomorrow" as a date and "Sun, 21 Oct" as the next Sunday.
	 *
	 * @param string $value A header's value.
	 */
	private static function http_date_ms( string $value ): ?int {
		if ( ! preg_match( '/^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/', $value, $m ) ) {
			return null;
		}
		list( , $day, $month, $year, $hour, $minute, $second ) = $m;
		if ( (int) $hour > 23 || (int) $minute > 59 || (int) $second > 60 ) {
			return null;
		}
		$date = ( new DateTimeImmutable( '@0' ) )->setDate( (int) $year, intdiv( strpos( 'JanFebMarAprMayJunJulAugSepOctNovDec', $month ), 3 ) + 1, (int) $day );
		// The 31st of February rolls over into March: no date.
		if ( (int) $date->format( 'j' ) !== (int) $day ) {
			return null;
		}
		return ( $date->getTimestamp() + ( (int) $hour * 60 + (int) $minute ) * 60 + (int) $second ) * 1000;
	}

	/**
	 * The service's words in an error answer (the contract's `readServiceWords` in
	 * src/contract/service-message.ts): JSON `{ error }`, `{ error: { message } }` or `{ message }`, or a plain-text body;
	 * null when it says nothing. The whole body is read (it is capped at the body limit), so no cut
	 * can leave half a token unrecognised.
	 *
	 * @param string $body         The body.
	 * @param string $content_type Its Content-Type.
	 */
	public static function service_words( string $body, string $content_type ): ?string {
		// No body within the size limit nests deeper than half its bytes.
		$json  = json_decode( $body, true, Live_Visitors_Rules::MAX_UPSTREAM_BODY_BYTES );
		$error = is_array( $json ) ? ( $json['error'] ?? null ) : null;
		$said  = is_array( $error ) ? ( $error['message'] ?? null ) : ( $error ?? ( is_array( $json ) ? ( $json['message'] ?? null ) : null ) );
		if ( is_string( $said ) ) {
			return $said;
		}
		return str_starts_with( $content_type, 'text/plain' ) ? $body : null;
	}

	private static function failure( string $kind, ?int $status, ?int $retry_after_ms, string $reason, ?string $said ): array {
		return array(
			'kind'           => $kind,
			'status'         => $status,
			'retry_after_ms' => $retry_after_ms,
			'reason'         => $reason,
			'said'           => $said,
		);
	}
}
