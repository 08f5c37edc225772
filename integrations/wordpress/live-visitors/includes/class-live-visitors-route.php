<?php
/**
 * The relay as a REST route on the shop's origin: GET /wp-json/live-visitors/api/v1/realtime?websiteId=…
 *
 * @package LiveVisitors
 */

defined( 'ABSPATH' ) || exit;

/**
 * Answers the element exactly as the service would, on the service's own path under the plugin's
 * REST namespace, so the element's `api-base` is `/wp-json/live-visitors`. The answer is written
 * by the plugin itself (`rest_pre_serve_request`): its bytes are the ones its ETag names, and its
 * caching headers are not replaced by WordPress's no-cache headers for logged-in users.
 */
final class Live_Visitors_Route {

	public const NAMESPACE = 'live-visitors';
	public const PATH      = '/api/v1/realtime';

	/** The answer this request will send: status, headers and body, made by the callback. */
	private static ?array $pending = null;

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
		$form = '/index.php/' . rest_get_url_prefix() . '/' . self::NAMESPACE . self::PATH;
		if ( str_ends_with( untrailingslashit( $path ), $form ) ) {
			$wp->query_vars['rest_route'] = '/' . self::NAMESPACE . self::PATH;
		}
	}

	/**
	 * Where the element finds the relay: a path on the page's own origin.
	 */
	public static function api_base(): string {
		$home = (string) wp_parse_url( home_url( '/' ), PHP_URL_PATH );
		$home = '' === $home ? '/' : trailingslashit( $home );
		$rest = '' === (string) get_option( 'permalink_structure' ) ? 'index.php/' . rest_get_url_prefix() : rest_get_url_prefix();
		return $home . $rest . '/' . self::NAMESPACE;
	}

	/**
	 * The REST callback: decides the answer; `serve` writes it.
	 *
	 * @param WP_REST_Request $request The request.
	 */
	public static function answer( WP_REST_Request $request ): WP_REST_Response {
		self::$pending = self::decide( $request );
		return new WP_REST_Response( null, self::$pending['status'] );
	}

	/**
	 * Writes the plugin's own answer for its route; any other route is WordPress's business.
	 *
	 * @param bool            $served  Whether another filter has served it.
	 * @param mixed           $result  WordPress's response.
	 * @param WP_REST_Request $request The request.
	 */
	public static function serve( $served, $result, $request ): bool {
		$answer = self::$pending;
		if ( $served || null === $answer || ! $request instanceof WP_REST_Request || '/' . self::NAMESPACE . self::PATH !== $request->get_route() ) {
			return (bool) $served;
		}
		self::$pending = null;
		// Logged-in shoppers get the same cacheable answer: no-cache here would defeat the interval.
		add_filter( 'rest_send_nocache_headers', '__return_false', PHP_INT_MAX );
		status_header( $answer['status'] );
		$unsent = 304 === $answer['status'] ? array( 'Expires', 'Pragma', 'Last-Modified', 'Content-Type' ) : array( 'Expires', 'Pragma', 'Last-Modified' );
		foreach ( $unsent as $name ) {
			header_remove( $name );
		}
		foreach ( $answer['headers'] as $name => $value ) {
			header( "$name: $value" );
		}
		if ( 'HEAD' !== $request->get_method() && null !== $answer['body'] ) {
			echo $answer['body']; // phpcs:ignore LiveVisitors.Output.EscapedEcho -- JSON for a JSON answer, built by wp_json_encode.
		}
		return true;
	}

	/**
	 * Status, headers and body for a request: the Node relay's answers (`relay/src/answers.ts`).
	 *
	 * @param WP_REST_Request $request The request.
	 * @return array{status: int, headers: array<string, string>, body: ?string}
	 */
	private static function decide( WP_REST_Request $request ): array {
		$website_id = self::website_id_parameter();
		if ( is_array( $website_id ) ) {
			return self::error( 400, $website_id['error'] );
		}
		$settings = Live_Visitors_Settings::get();
		// Unknown ids never reach the service: the site is no open proxy.
		if ( ! Live_Visitors_Settings::is_complete( $settings ) || $website_id !== $settings['website_id'] ) {
			return self::error( 404, 'Website not found' );
		}
		$relay  = new Live_Visitors_Relay( $settings );
		$result = $relay->current();
		if ( 'unavailable' === $result['kind'] ) {
			return self::error( $result['status'], $result['message'], array( 'Retry-After' => (string) max( 1, (int) ceil( ( $result['retry_at_ms'] - Live_Visitors_Relay::now_ms() ) / 1000 ) ) ) );
		}
		$answer  = $result['answer'];
		$headers = array_merge(
			self::freshness_headers( $settings, $result['age_ms'] ),
			array( 'ETag' => $answer['etag'] )
		);
		if ( self::matches_if_none_match( $request->get_header( 'if_none_match' ), $answer['etag'] ) ) {
			return array(
				'status'  => 304,
				'headers' => $headers,
				'body'    => null,
			);
		}
		return array(
			'status'  => 200,
			'headers' => array_merge( array( 'Content-Type' => 'application/json' ), $headers ),
			'body'    => $answer['body'],
		);
	}

	/**
	 * `websiteId` read from the raw query as the service reads it: once, not empty, at most 256
	 * characters. (`$_GET` would keep the last of two silently.)
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
			return array( 'error' => 'websiteId must be given only once' );
		}
		if ( array() === $values || '' === $values[0] ) {
			return array( 'error' => 'websiteId is required' );
		}
		if ( strlen( $values[0] ) > Live_Visitors_Settings::MAX_IDENTIFIER_LENGTH ) {
			return array( 'error' => 'websiteId must be at most 256 characters' );
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
			'Age'                    => (string) max( 0, intdiv( $age_ms, 1000 ) ),
		);
	}

	/**
	 * RFC 9110 §13.1.2: weak comparison, a list, or `*`.
	 *
	 * @param string|null $header The If-None-Match header.
	 * @param string      $etag   The answer's ETag.
	 */
	private static function matches_if_none_match( ?string $header, string $etag ): bool {
		if ( null === $header ) {
			return false;
		}
		$wanted = trim( $header );
		if ( '*' === $wanted ) {
			return true;
		}
		$opaque = fn ( string $tag ): string => (string) preg_replace( '/^W\//', '', trim( $tag ) );
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
	private static function error( int $status, string $message, array $headers = array() ): array {
		return array(
			'status'  => $status,
			'headers' => array_merge(
				array(
					'Content-Type'           => 'application/json',
					'X-Content-Type-Options' => 'nosniff',
					'Cache-Control'          => 'no-store',
					'CDN-Cache-Control'      => 'no-store',
				),
				$headers
			),
			'body'    => (string) wp_json_encode( array( 'error' => $message ), JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE ),
		);
	}
}
