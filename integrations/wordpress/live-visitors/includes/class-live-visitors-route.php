<?php
/**
 * The relay as a REST route on the shop's origin: GET /wp-json/live-visitors/api/v1/realtime?websiteId=…
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Answers the element exactly as the service would, on the service's own path under the plugin's
 * REST namespace, so the element's `api-base` is `/wp-json/live-visitors`. The callback builds the
 * whole answer as a `WP_REST_Response` (status, headers, and the JSON text as its data); WordPress
 * sends its status and headers, and `serve` writes its data as it is: its bytes are the ones its
 * ETag names, and its caching headers are not replaced by WordPress's no-cache headers for
 * logged-in users.
 */
final class Live_Visitors_Route {

	public const NAMESPACE = 'live-visitors';
	public const PATH      = Live_Visitors_Rules::REALTIME_PATH;
	/** The route as WordPress names it. */
	public const ROUTE = '/' . self::NAMESPACE . self::PATH;

	public static function register_hooks(): void {
		add_action( 'rest_api_init', array( self::class, 'register' ) );
		add_filter( 'rest_pre_serve_request', array( self::class, 'serve' ), 10, 3 );
		// Before rest_api_loaded (priority 10): the index.php form works without pretty permalinks.
		add_action( 'parse_request', array( self::class, 'route_index_php_form' ), 5 );
	}

	public static function register(): void {
		register_rest_route(
			self::NAMESPACE,
			self::PATH,
			array(
				'methods'             => WP_REST_Server::READABLE,
				'callback'            => array( self::class, 'answer' ),
				// A public count, as public as the page it stands on.
				'permission_callback' => '__return_true',
			)
		);
	}

	/**
	 * The element builds `{api-base}/api/v1/realtime?websiteId=…` from a path and drops any query
	 * of `api-base`, so `?rest_route=` cannot be its base. On sites without pretty permalinks the
	 * plugin gives it `/index.php/wp-json/live-visitors` and routes that path here itself.
	 *
	 * @param WP $wp The request being parsed.
	 */
	public static function route_index_php_form( WP $wp ): void {
		if ( ! empty( $wp->query_vars['rest_route'] ) || ! isset( $_SERVER['REQUEST_URI'] ) ) {
			return;
		}
		$path = (string) wp_parse_url( wp_unslash( $_SERVER['REQUEST_URI'] ), PHP_URL_PATH ); // phpcs:ignore -- compared, never printed.
		$form = '/index.php/' . rest_get_url_prefix() . self::ROUTE;
		if ( str_ends_with( untrailingslashit( $path ), $form ) ) {
			$wp->query_vars['rest_route'] = self::ROUTE;
		}
	}

	/**
	 * Where the element finds the relay: a path on the page's own origin. WordPress's own
	 * `rest_url()` knows every permalink structure (PATHINFO's `/index.php/wp-json/` included);
	 * without pretty permalinks it gives `?rest_route=`, which the element cannot use (it keeps
	 * only the path of its base), so the plugin gives the path it routes itself.
	 */
	public static function api_base(): string {
		if ( '' === (string) get_option( 'permalink_structure' ) ) {
			$home = (string) wp_parse_url( home_url( '/' ), PHP_URL_PATH );
			return trailingslashit( '' === $home ? '/' : $home ) . 'index.php/' . rest_get_url_prefix() . '/' . self::NAMESPACE;
		}
		return untrailingslashit( (string) wp_parse_url( rest_url( self::NAMESPACE ), PHP_URL_PATH ) );
	}

	/**
	 * The REST callback: the whole answer, its data the JSON text itself (or null for none).
	 * WordPress matches routes regardless of letter case; the Node relay and the service do not,
	 * so a path in other letters is not found.
	 *
	 * @param WP_REST_Request $request The request.
	 */
	public static function answer( WP_REST_Request $request ): WP_REST_Response {
		if ( self::ROUTE !== $request->get_route() ) {
			return self::error( 404, sprintf( 'Not found: the plugin answers GET %s%s?websiteId=…', self::api_base(), self::PATH ) );
		}
		return self::decide( $request );
	}

	/**
	 * Writes the data of the plugin's own answer as it is (WordPress has sent its status and
	 * headers); any other route is WordPress's business.
	 *
	 * @param bool  $served  Whether another filter has served it.
	 * @param mixed $result  The response the callback returned.
	 * @param mixed $request The request.
	 */
	public static function serve( $served, $result, $request ): bool {
		if ( $served || ! $result instanceof WP_REST_Response || self::ROUTE !== $result->get_matched_route() || ! $request instanceof WP_REST_Request ) {
			return (bool) $served;
		}
		// Logged-in shoppers get the same cacheable answer: no-cache here would defeat the interval.
		add_filter( 'rest_send_nocache_headers', '__return_false', PHP_INT_MAX );
		$unsent = 304 === $result->get_status() ? array( 'Expires', 'Pragma', 'Last-Modified', 'Content-Type' ) : array( 'Expires', 'Pragma', 'Last-Modified' );
		foreach ( $unsent as $name ) {
			header_remove( $name );
		}
		$body = $result->get_data();
		if ( 'HEAD' !== $request->get_method() && is_string( $body ) ) {
			echo $body; // phpcs:ignore LiveVisitors.Output.EscapedEcho -- JSON for a JSON answer, built by json_encode.
		}
		return true;
	}

	/**
	 * The answer to a request for the realtime path: the Node relay's answers (`relay/src/responses.ts`).
	 *
	 * @param WP_REST_Request $request The request.
	 */
	private static function decide( WP_REST_Request $request ): WP_REST_Response {
		$website_id = self::website_id_parameter();
		if ( is_array( $website_id ) ) {
			return self::error( 400, $website_id['error'] );
		}
		$settings = Live_Visitors_Settings::get();
		// Unknown ids never reach the service: the site is no open proxy.
		if ( ! Live_Visitors_Settings::is_complete( $settings ) || $website_id !== $settings['website_id'] ) {
			return self::error( 404, Live_Visitors_Rules::MESSAGE_WEBSITE_NOT_FOUND );
		}
		$relay  = new Live_Visitors_Relay( $settings );
		$result = $relay->current();
		if ( 'unavailable' === $result['kind'] ) {
			return self::error( $result['status'], $result['message'], array( 'Retry-After' => (string) self::retry_after_seconds( $result['retry_at_ms'], Live_Visitors_Relay::now_ms() ) ) );
		}
		$answer  = $result['answer'];
		$headers = array_merge(
			self::freshness_headers( $settings, $result['age_ms'] ),
			array( 'ETag' => $answer['etag'] )
		);
		if ( self::matches_if_none_match( $request->get_header( 'if_none_match' ), $answer['etag'] ) ) {
			return new WP_REST_Response( null, 304, $headers );
		}
		return new WP_REST_Response( $answer['body'], 200, array_merge( array( 'Content-Type' => 'application/json' ), $headers ) );
	}

	/**
	 * `Retry-After` in whole seconds, rounded up, from 1 to the relay's cap (an hour): the Node
	 * relay's, whatever time a damaged store gave.
	 *
	 * @param int $at_ms  When to ask again.
	 * @param int $now_ms Now.
	 */
	public static function retry_after_seconds( int $at_ms, int $now_ms ): int {
		return (int) min( Live_Visitors_Rules::RELAY_MAX_RETRY_AFTER_SECONDS, max( 1, ceil( ( $at_ms - $now_ms ) / 1000 ) ) );
	}

	/**
	 * `websiteId` read from the raw query as the service reads it: once, not empty, at most the
	 * identifier length. (`$_GET` would keep the last of two silently.)
	 *
	 * @return string|array{error: string}
	 */
	private static function website_id_parameter() {
		$query  = isset( $_SERVER['QUERY_STRING'] ) ? (string) wp_unslash( $_SERVER['QUERY_STRING'] ) : ''; // phpcs:ignore -- parsed, never printed.
		$values = array();
		foreach ( explode( '&', $query ) as $pair ) {
			$parts = explode( '=', $pair, 2 );
			if ( 'websiteId' === rawurldecode( str_replace( '+', ' ', $parts[0] ) ) ) {
				$values[] = rawurldecode( str_replace( '+', ' ', $parts[1] ?? '' ) );
			}
		}
		if ( count( $values ) > 1 ) {
			return array( 'error' => Live_Visitors_Rules::MESSAGE_WEBSITE_ID_REPEATED );
		}
		if ( array() === $values || '' === $values[0] ) {
			return array( 'error' => Live_Visitors_Rules::MESSAGE_WEBSITE_ID_REQUIRED );
		}
		if ( strlen( $values[0] ) > Live_Visitors_Rules::MAX_IDENTIFIER_LENGTH ) {
			return array( 'error' => sprintf( 'websiteId must be at most %d characters', Live_Visitors_Rules::MAX_IDENTIFIER_LENGTH ) );
		}
		return $values[0];
	}

	/**
	 * `max-age` is one interval from the upstream fetch and `Age` says how much of it is gone, so a
	 * cache in front refreshes when the plugin does; the two stale windows never pass maxStale.
	 * No `s-maxage`: for shared caches it means `proxy-revalidate`, which forbids serving stale.
	 *
	 * @param array<string, mixed> $settings The settings.
	 * @param int                  $age_ms   Since the upstream fetch.
	 * @return array<string, string>
	 */
	public static function freshness_headers( array $settings, int $age_ms ): array {
		$max_age        = min( $settings['interval'], $settings['max_stale'] );
		$stale_if_error = $settings['max_stale'] - $max_age;
		$directives     = sprintf( 'public, max-age=%d, stale-while-revalidate=%d, stale-if-error=%d', $max_age, min( $settings['interval'], $stale_if_error ), $stale_if_error );
		return array(
			'X-Content-Type-Options' => 'nosniff',
			'Cache-Control'          => $directives,
			'CDN-Cache-Control'      => $directives,
			'Age'                    => (string) min( Live_Visitors_Rules::MAX_AGE_SECONDS, max( 0, intdiv( $age_ms, 1000 ) ) ),
		);
	}

	/**
	 * RFC 9110 §13.1.2: weak comparison, a list, or `*` (the Node relay's `matchesIfNoneMatch`).
	 *
	 * @param string|null $header The If-None-Match header.
	 * @param string      $etag   The answer's ETag.
	 */
	public static function matches_if_none_match( ?string $header, string $etag ): bool {
		if ( null === $header ) {
			return false;
		}
		// Only spaces and tabs are white space here (RFC 9110 §5.6.3).
		$wanted = trim( $header, " \t" );
		if ( '*' === $wanted ) {
			return true;
		}
		$opaque = fn ( string $tag ): string => (string) preg_replace( '/^W\//', '', trim( $tag, " \t" ) );
		foreach ( array_slice( explode( ',', $wanted ), 0, 64 ) as $tag ) {
			if ( $opaque( $tag ) === $opaque( $etag ) ) {
				return true;
			}
		}
		return false;
	}

	/**
	 * `{ "error": "…" }`, never cached by any cache.
	 *
	 * @param int                   $status  The status.
	 * @param string                $message What went wrong, in the plugin's words.
	 * @param array<string, string> $headers More headers.
	 */
	private static function error( int $status, string $message, array $headers = array() ): WP_REST_Response {
		$body = (string) wp_json_encode( array( 'error' => $message ), JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE );
		return new WP_REST_Response(
			$body,
			$status,
			array_merge(
				array(
					'Content-Type'           => 'application/json',
					'X-Content-Type-Options' => 'nosniff',
					'Cache-Control'          => 'no-store',
					'CDN-Cache-Control'      => 'no-store',
				),
				$headers
			)
		);
	}
}
