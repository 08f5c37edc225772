<?php
/**
 * The element's script, loaded the way the README's snippet loads it, once per page.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Prints the README's inline loader: nothing is fetched before the first paint of a first visit
 * (the element comes half a second after `load`), and a shopper with a count stored gets the
 * script at once, holding the first paint when the loader is in `<head>`. WordPress 6.1 has no
 * script modules and no loading strategies, so the loader is printed as an inline script and
 * creates the `type="module"` script itself.
 *
 * In `<head>` when the page is known to need it there (a block theme renders its blocks before
 * `wp_head`; a post whose content has the block or the shortcode; a product page), else at the
 * end of `<body>` once something rendered the element; never twice.
 */
final class Live_Visitors_Loader {

	private static bool $needed  = false;
	private static bool $printed = false;

	public static function register_hooks(): void {
		// First in <head>, before the stylesheets (printed at 8), as the README's snippet stands: an
		// inline script after a pending stylesheet waits for it before it runs.
		add_action( 'wp_head', array( self::class, 'print_in_head' ), 1 );
		add_action( 'wp_footer', array( self::class, 'print_in_footer' ), 5 );
	}

	/** Something on this page rendered the element. */
	public static function mark_needed(): void {
		self::$needed = true;
	}

	public static function print_in_head(): void {
		if ( self::$needed || self::page_will_need_it() ) {
			self::print_once();
		}
	}

	public static function print_in_footer(): void {
		if ( self::$needed ) {
			self::print_once();
		}
	}

	/** The URL of the element's script inside the plugin. */
	public static function script_url(): string {
		return plugins_url( 'assets/live-visitors.js', LIVE_VISITORS_FILE );
	}

	/**
	 * The README's snippet, with the plugin's copy of the script: `assets/loader.js` is the README's
	 * inline script as `npm run build` found it; only its example URL is replaced. '' when the file
	 * or its URL is missing (a plugin built wrong prints no loader rather than a broken one).
	 *
	 * @param string $script_url Where the element's script is.
	 */
	public static function loader_script( string $script_url ): string {
		$file    = dirname( LIVE_VISITORS_FILE ) . '/assets/loader.js';
		$example = "'https://your-cdn.example/live-visitors.js'";
		$loader  = is_readable( $file ) ? (string) file_get_contents( $file ) : ''; // phpcs:ignore -- a file of the plugin's own.
		if ( ! str_contains( $loader, $example ) ) {
			return '';
		}
		// A single-quoted JavaScript string, as in the README; `<` escaped so no `</script>` can end the tag.
		$src = "'" . str_replace( array( '\\', "'", '<' ), array( '\\\\', "\\'", '\\x3C' ), $script_url ) . "'";
		return str_replace( $example, $src, $loader );
	}

	private static function print_once(): void {
		if ( self::$printed ) {
			return;
		}
		self::$printed = true;
		$loader        = self::loader_script( self::script_url() );
		if ( '' !== $loader ) {
			wp_print_inline_script_tag( $loader, array( 'id' => 'live-visitors-loader' ) );
		}
	}

	/** Whether the main content or a product page will show the element (known before the body renders). */
	private static function page_will_need_it(): bool {
		if ( ! is_singular() ) {
			return false;
		}
		$post = get_queried_object();
		if ( $post instanceof WP_Post && ( has_block( 'live-visitors/live-visitors', $post ) || has_shortcode( $post->post_content, 'live_visitors' ) ) ) {
			return true;
		}
		return function_exists( 'is_product' ) && is_product() && Live_Visitors_Settings::get()['show_on_products'];
	}
}
