<?php
/**
 * The one request to the analytics service: the token goes only into its Authorization header.
 *
 * @package LiveVisitors
 */

defined( 'ABSPATH' ) || exit;

/**
 * Asks the service for the website's report and reads the answer as the Node relay does
 * (`relay/src/upstream.ts`): only a report that passes the widget's own checks comes back.
 */
final class Live_Visitors_Upstream {

	/** Shorter than the widget's own 10 s, so a browser gets the stale answer rather than its own timeout. */
	public const TIMEOUT_SECONDS = 5;
	/** An answer of the service is a few dozen bytes; anything far larger is not one. */
	public const MAX_BODY_BYTES = 16384;
	/** The service's report timestamp: ISO 8601 UTC with milliseconds, as the element accepts it. */
	private const TIMESTAMP_SYNTAX = '/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/';
	private const MAX_SAFE_INTEGER = 9007199254740991;

	/**
	 * Asks once; never throws.
	 *
	 * @param array<string, mixed> $settings The plugin's settings.
	 * @return array{report: array{currentVisitors: int, websiteId: string, timestamp: string}}|array{failure: array{kind: string, status: ?int, retry_after_ms: ?int, summary: string, reason: string}}
	 */
	public static function fetch( array $settings ): array {
		$url      = $settings['base_url'] . '/api/v1/realtime?' . http_build_query( array( 'websiteId' => $settings['website_id'] ), '', '&', PHP_QUERY_RFC3986 );
		$response = wp_remote_get(
			$url,
			array(
				'timeout'             => self::TIMEOUT_SECONDS,
				// A redirect elsewhere would carry the token along: a 3xx is a failure.
				'redirection'         => 0,
				// One byte over the limit tells a large answer from one that just fits.
				'limit_response_size' => self::MAX_BODY_BYTES + 1,
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
		if ( strlen( $body ) > self::MAX_BODY_BYTES ) {
			return self::invalid( $status, 'sent an answer larger than 16 KB' );
		}
		if ( $status < 200 || $status > 299 ) {
			return array( 'failure' => self::status_failure( $status, $response, $body, $settings['token'] ) );
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
				'currentVisitors' => $json['currentVisitors'],
				'websiteId'       => $json['websiteId'],
				'timestamp'       => $json['timestamp'],
			),
		);
	}

	/**
	 * What is wrong with a parsed answer, or null for a report (the widget's `parseReport`).
	 *
	 * @param array<mixed> $json       The decoded body.
	 * @param string       $website_id The website asked for.
	 */
	public static function report_problem( array $json, string $website_id ): ?string {
		$count = $json['currentVisitors'] ?? null;
		if ( ! is_int( $count ) || $count < 0 || $count > self::MAX_SAFE_INTEGER ) {
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
			$said = 'did not answer within ' . self::TIMEOUT_SECONDS . ' s';
			return self::failure( 'timeout', null, null, $said, $said );
		}
		$said = 'could not be reached' . ( null === $code ? '' : " (cURL error $code)" );
		return self::failure( 'network', null, null, 'could not be reached', $said );
	}

	private static function invalid( int $status, string $reason ): array {
		return array( 'failure' => self::failure( 'invalid-response', $status, null, 'sent an invalid answer', $reason ) );
	}

	/**
	 * A status that is not 2xx, with what to fix. The service's own words go into `reason` (for the
	 * log and the settings page, token redacted), never into `summary`, which shoppers may read.
	 *
	 * @param int                  $status   The HTTP status.
	 * @param array<string, mixed> $response The HTTP API's response.
	 * @param string               $body     The body.
	 * @param string               $token    The token, to redact.
	 */
	private static function status_failure( int $status, array $response, string $body, string $token ): array {
		$kind  = self::kind_for_status( $status );
		$said  = self::service_message( $body, (string) wp_remote_retrieve_header( $response, 'content-type' ), $token );
		$wait  = 'rate-limited' === $kind ? self::retry_after_ms( $response ) : null;
		$fixes = array(
			'unauthorized' => ': check the API token in Settings → Live visitors',
			'not-found'    => ': check the website ID in Settings → Live visitors',
			'rate-limited' => ': the plan\'s hourly limit is used up',
		);
		$fix   = $status >= 300 && $status < 400 ? ': set the service base URL to the final address, the plugin does not follow redirects' : ( $fixes[ $kind ] ?? '' );
		return self::failure( $kind, $status, $wait, "answered $status", "answered $status" . ( '' === $said ? '' : " \"$said\"" ) . $fix );
	}

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
	 * `Retry-After` as delay-seconds or an HTTP date, in milliseconds; null when absent or unreadable.
	 *
	 * @param array<string, mixed> $response The HTTP API's response.
	 */
	private static function retry_after_ms( array $response ): ?int {
		$value = trim( (string) wp_remote_retrieve_header( $response, 'retry-after' ) );
		if ( preg_match( '/^\d{1,9}$/', $value ) ) {
			return (int) $value * 1000;
		}
		if ( ! preg_match( '/^[A-Z][a-z]{2}, \d.* GMT$/', $value ) ) {
			return null;
		}
		$at   = strtotime( $value );
		$date = strtotime( (string) wp_remote_retrieve_header( $response, 'date' ) );
		return false === $at ? null : max( 0, ( $at - ( false === $date ? time() : $date ) ) * 1000 );
	}

	/**
	 * The service's words in an error answer, safe for a log line: token redacted first, then control
	 * characters and quotes folded, then shortened (so shortening cannot cut the token into an unknown piece).
	 *
	 * @param string $body         The body.
	 * @param string $content_type Its Content-Type.
	 * @param string $token        The token.
	 */
	public static function service_message( string $body, string $content_type, string $token ): string {
		$text = str_starts_with( $content_type, 'text/plain' ) ? $body : null;
		$json = json_decode( $body, true, 4 );
		if ( is_array( $json ) ) {
			$text = $json['error'] ?? $json['message'] ?? $text;
		}
		if ( ! is_string( $text ) ) {
			return '';
		}
		$clean = trim( (string) preg_replace( '/[\x00-\x1f\x7f"\s]+/u', ' ', self::redact( $text, $token ) ) );
		return mb_strlen( $clean ) > 200 ? mb_substr( $clean, 0, 200 ) . '…' : $clean;
	}

	/**
	 * `$text` without the token, plain or URL-encoded.
	 *
	 * @param string $text  Any text.
	 * @param string $token The token.
	 */
	public static function redact( string $text, string $token ): string {
		if ( '' === $token ) {
			return $text;
		}
		$forms = array_unique( array( $token, rawurlencode( $token ), urlencode( $token ) ) );
		usort( $forms, fn ( $a, $b ) => strlen( $b ) - strlen( $a ) );
		return str_replace( $forms, '[token]', $text );
	}

	private static function failure( string $kind, ?int $status, ?int $retry_after_ms, string $summary, string $reason ): array {
		return array(
			'kind'           => $kind,
			'status'         => $status,
			'retry_after_ms' => $retry_after_ms,
			'summary'        => $summary,
			'reason'         => $reason,
		);
	}
}
