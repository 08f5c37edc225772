<?php
/**
 * The contract's case tables (`src/contract/cases/*.json`) run through the plugin's own functions,
 * outside WordPress (these use nothing of it): `{"<table>": [input, …], …}` on standard input, the
 * plugin's answer to each input as JSON on standard output, table by table, for
 * `contract-cases.test.ts` to hold against the table's expected answers.
 *
 * @package LiveVisitorsTest
 */

declare(strict_types=1);

define( 'ABSPATH', __DIR__ . '/' );
const LIVE_VISITORS_INCLUDES = __DIR__ . '/../../live-visitors/includes/';
foreach ( array( 'rules', 'upstream', 'redactor', 'relay', 'route' ) as $live_visitors_part ) {
	require LIVE_VISITORS_INCLUDES . "class-live-visitors-$live_visitors_part.php";
}

/**
 * A header's value as PHP receives it: the tables write header values as text whose characters
 * are the bytes HTTP carried (Latin-1), as Node reads them.
 *
 * @param string|null $value The value, or null when the header is absent.
 */
function live_visitors_header( ?string $value ): string {
	return null === $value ? '' : mb_convert_encoding( $value, 'ISO-8859-1', 'UTF-8' );
}

$live_visitors_runs = array(
	'backoff'          => fn ( array $c ) => Live_Visitors_Relay::retry_delay( $c['kind'], $c['retryAfterMs'], $c['failures'], $c['intervalMs'], (float) $c['random'] ),
	'error-kinds'      => fn ( array $c ) => Live_Visitors_Upstream::kind_for_status( $c['status'] ),
	'retry-after'      => fn ( array $c ) => Live_Visitors_Upstream::retry_after_ms( live_visitors_header( $c['retryAfter'] ), live_visitors_header( $c['date'] ), $c['nowMs'] ),
	'retry-after-sent' => fn ( array $c ) => (string) Live_Visitors_Route::retry_after_seconds( $c['retryAtMs'], $c['nowMs'] ),
	'etag'             => fn ( array $c ) => Live_Visitors_Relay::etag_for( $c['body'] ),
	'if-none-match'    => fn ( array $c ) => Live_Visitors_Route::matches_if_none_match( null === $c['ifNoneMatch'] ? null : live_visitors_header( $c['ifNoneMatch'] ), $c['etag'] ),
	'service-words'    => fn ( array $c ) => Live_Visitors_Upstream::service_words( $c['body'], $c['contentType'] ?? '' ),
	'report'           => fn ( array $c ) => Live_Visitors_Upstream::report_problem( json_decode( $c['body'], true, 512, JSON_THROW_ON_ERROR ), $c['websiteId'] ),
	'cache-headers'    => fn ( array $c ) => array_diff_key(
		Live_Visitors_Route::freshness_headers( array( 'interval' => $c['interval'], 'max_stale' => $c['maxStale'] ), $c['ageMs'] ),
		// Sent with every answer, not a caching header.
		array( 'X-Content-Type-Options' => true )
	),
	'redaction'        => function ( array $c ): array {
		$redactor = new Live_Visitors_Redactor( $c['secrets'] );
		return array(
			'clean' => $redactor->clean( $c['text'] ),
			'words' => $redactor->words( $c['text'] ),
		);
	},
);

$live_visitors_results = array();
foreach ( json_decode( (string) stream_get_contents( STDIN ), true, 512, JSON_THROW_ON_ERROR ) as $live_visitors_table => $live_visitors_inputs ) {
	$live_visitors_results[ $live_visitors_table ] = array_map( $live_visitors_runs[ $live_visitors_table ], $live_visitors_inputs );
}
echo json_encode( $live_visitors_results, JSON_INVALID_UTF8_SUBSTITUTE | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR );
