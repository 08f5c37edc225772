<?php
/**
 * The plugin's readers of untrusted values and its redactor, run outside WordPress (they use
 * nothing of it) for the property tests: `{"reader": …, "cases": […]}` on standard input, one
 * result per case as JSON on standard output.
 *
 * @package LiveVisitorsTest
 */

declare(strict_types=1);

define( 'ABSPATH', __DIR__ . '/' );
const LIVE_VISITORS_INCLUDES = __DIR__ . '/../../live-visitors/includes/';
foreach ( array( 'rules', 'upstream', 'stored-records', 'redactor' ) as $live_visitors_part ) {
	require LIVE_VISITORS_INCLUDES . "class-live-visitors-$live_visitors_part.php";
}

$live_visitors_input = json_decode( (string) stream_get_contents( STDIN ), true );
$live_visitors_read  = match ( $live_visitors_input['reader'] ) {
	'state'  => fn ( array $c ) => Live_Visitors_Stored_Records::read_state( $c['raw'], $c['website_id'], $c['now_ms'], $c['interval_ms'] ),
	'budget' => fn ( array $c ) => Live_Visitors_Stored_Records::read_budget_times( $c['raw'], $c['now_ms'] ),
	'lock'   => fn ( array $c ) => Live_Visitors_Stored_Records::read_lock_expiry( $c['raw'], $c['now_ms'], $c['life_ms'] ),
	'clean'  => fn ( array $c ) => Live_Visitors_Redactor::for_token( $c['token'] )->clean( $c['text'] ),
	'words'  => fn ( array $c ) => Live_Visitors_Redactor::for_token( $c['token'] )->words( $c['text'] ),
};
echo json_encode( array_map( $live_visitors_read, $live_visitors_input['cases'] ), JSON_INVALID_UTF8_SUBSTITUTE | JSON_UNESCAPED_SLASHES );
