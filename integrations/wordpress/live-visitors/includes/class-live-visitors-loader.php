<?php
/**
 * The element's script, loaded the way the README's snippet loads it, once per page.
 *
 * @package LiveVisitors
 */

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
		add_action( 'wp_head', array( self::class, 'print_in_head' ), 99 );
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
	 * The README's snippet, with the plugin's copy of the script.
	 *
	 * @param string $script_url Where the element's script is.
	 */
	public static function loader_script( string $script_url ): string {
		// A single-quoted JavaScript string, as in the README; `<` escaped so no `</script>` can end the tag.
		$src = "'" . str_replace( array( '\\', "'", '<' ), array( '\\\\', "\\'", '\\x3C' ), $script_url ) . "'";
		return <<<JS
  // live-visitors: fetched at once when this browser has a count stored, else once the page has loaded
  (() => {
    const start = () => {
      const script = document.createElement('script');
      script.type = 'module';
      script.src = $src;
      script.setAttribute('blocking', 'render'); // added in <head>: the stored count is in the first frame
      document.head.append(script);
    };
    let stored = false;
    try {
      // Looked for only when coming from a page of this site: a first visit does not pay for the look.
      stored = document.referrer.startsWith(`\${location.origin}/`) &&
        Object.keys(localStorage).some((key) => key.startsWith('live-visitors:v1:'));
    } catch {}
    if (stored) start();
    else if (document.readyState === 'complete') setTimeout(start, 500);
    else addEventListener('load', () => setTimeout(start, 500), { once: true });
  })();

JS;
	}

	private static function print_once(): void {
		if ( self::$printed ) {
			return;
		}
		self::$printed = true;
		wp_print_inline_script_tag( self::loader_script( self::script_url() ), array( 'id' => 'live-visitors-loader' ) );
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
