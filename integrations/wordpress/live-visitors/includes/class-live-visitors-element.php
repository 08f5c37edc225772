<?php
/**
 * The `<live-visitors>` element, as the block, the shortcode and the product-page option print it.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Builds the element's tag from the site's settings and a placement's own options, every value
 * escaped with `esc_attr`: a sentence with markup in it is shown as text.
 */
final class Live_Visitors_Element {

	public static function register_hooks(): void {
		add_action( 'init', array( self::class, 'register' ) );
		add_action( 'init', array( self::class, 'add_product_placement' ), 20 );
	}

	public static function register(): void {
		register_block_type( dirname( LIVE_VISITORS_FILE ) . '/block' );
		add_shortcode( 'live_visitors', array( self::class, 'shortcode' ) );
	}

	/**
	 * WooCommerce's single-product summary prints the price at priority 10 and the excerpt at 20:
	 * the element goes between, under the price. Without WooCommerce the hook never runs.
	 */
	public static function add_product_placement(): void {
		if ( Live_Visitors_Settings::get()['show_on_products'] ) {
			add_action( 'woocommerce_single_product_summary', array( self::class, 'print_on_product' ), 11 );
		}
	}

	public static function print_on_product(): void {
		echo Live_Visitors_Element::markup( array() ); // Escaped where it is built: every attribute through esc_attr.
	}

	/**
	 * `[live_visitors min="5" text="{count} here now" notation="compact" disclosure="off" holdout="0.1"]`
	 *
	 * @param array|string $attributes The shortcode's attributes ('' when it has none).
	 */
	public static function shortcode( $attributes ): string {
		$given = shortcode_atts(
			array(
				'min'        => '',
				'text'       => '',
				'notation'   => '',
				'disclosure' => '',
				'holdout'    => '',
			),
			is_array( $attributes ) ? $attributes : array(),
			'live_visitors'
		);
		return self::markup(
			array(
				'min'            => $given['min'],
				'sentence'       => $given['text'],
				'compactNumbers' => 'compact' === $given['notation'],
				'explanation'    => 'off' !== $given['disclosure'],
				'holdout'        => $given['holdout'],
			)
		);
	}

	/**
	 * The element, or nothing when the plugin has no website ID yet.
	 *
	 * @param array<string, mixed> $options   `min`, `sentence`, `compactNumbers`, `explanation`, `holdout` (block attributes).
	 * @param string               $wrapper   The block's wrapper attributes, already escaped by `get_block_wrapper_attributes`.
	 */
	public static function markup( array $options, string $wrapper = '' ): string {
		$settings = Live_Visitors_Settings::get();
		if ( '' === $settings['website_id'] ) {
			return '';
		}
		Live_Visitors_Loader::mark_needed();
		$attributes = array(
			'website-id' => $settings['website_id'],
			'api-base'   => Live_Visitors_Route::api_base(),
			// The element polls no faster than its floor; the relay answers every poll from its cache.
			'interval'   => (string) max( Live_Visitors_Rules::ELEMENT_MIN_INTERVAL_SECONDS, $settings['interval'] ),
		);
		$min = self::number( $options['min'] ?? null );
		if ( null !== $min && $min > 1 ) {
			$attributes['min'] = (string) (int) ceil( $min );
		}
		$sentence = is_string( $options['sentence'] ?? null ) && '' !== trim( $options['sentence'] ) ? trim( $options['sentence'] ) : $settings['sentence'];
		if ( '' !== $sentence ) {
			$attributes['text'] = $sentence;
		}
		if ( ! empty( $options['compactNumbers'] ) ) {
			$attributes['notation'] = 'compact';
		}
		if ( array_key_exists( 'explanation', $options ) && ! $options['explanation'] ) {
			$attributes['disclosure'] = 'off';
		}
		$holdout = self::number( $options['holdout'] ?? null );
		if ( null !== $holdout && $holdout > 0 ) {
			$attributes['holdout'] = (string) min( 0.9, $holdout );
		}
		$html = '<live-visitors';
		foreach ( $attributes as $name => $value ) {
			$html .= ' ' . $name . '="' . esc_attr( $value ) . '"';
		}
		// Two lines kept for the sentence, so nothing moves when it appears (the README's snippet).
		$element = $html . ' style="' . esc_attr( Live_Visitors_Rules::RESERVED_LINES_STYLE ) . '"></live-visitors>';
		return '' === $wrapper ? $element : '<div ' . $wrapper . '>' . $element . '</div>';
	}

	/**
	 * A finite number from a block attribute or a shortcode's text, or null.
	 *
	 * @param mixed $value The given value.
	 */
	private static function number( $value ): ?float {
		if ( is_int( $value ) || is_float( $value ) ) {
			return is_finite( (float) $value ) ? (float) $value : null;
		}
		return is_string( $value ) && is_numeric( trim( $value ) ) ? (float) trim( $value ) : null;
	}
}
