<?php
/**
 * The plugin's settings: one option, validated as a whole, so a bad field never leaves the others half-saved.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Reads, validates and stores the settings (website ID, token, service, interval, budget, sentence).
 */
final class Live_Visitors_Settings {

	public const OPTION = 'live_visitors_settings';
	public const GROUP  = 'live_visitors';

	public const MAX_SENTENCE_LENGTH = 200;

	/**
	 * The settings as last validated in this request, and the stored value they came from: read
	 * once per request however many placements a page has, again only when the option changes.
	 *
	 * @var array{stored: mixed, settings: array<string, mixed>}|null
	 */
	private static ?array $validated = null;

	/**
	 * Defaults: the widget's interval, the Node relay's maxStale, the Free plan's hourly limit.
	 *
	 * @return array<string, mixed>
	 */
	public static function defaults(): array {
		return array(
			'website_id'       => '',
			'token'            => '',
			'base_url'         => '',
			'interval'         => Live_Visitors_Rules::DEFAULT_INTERVAL_SECONDS,
			'max_stale'        => Live_Visitors_Rules::DEFAULT_MAX_STALE_SECONDS,
			'hourly_budget'    => Live_Visitors_Rules::DEFAULT_HOURLY_BUDGET,
			'sentence'         => '',
			'show_on_products' => false,
		);
	}

	public static function register_hooks(): void {
		// On every request, so that update_option from any code goes through the same checks.
		add_action( 'init', array( self::class, 'register' ) );
		// A new website, token or service makes the cached count someone else's: forget it.
		add_action( 'update_option_' . self::OPTION, array( self::class, 'forget_cached_answer' ), 10, 2 );
	}

	public static function register(): void {
		register_setting(
			self::GROUP,
			self::OPTION,
			array(
				'type'              => 'object',
				'default'           => self::defaults(),
				'sanitize_callback' => array( self::class, 'sanitize' ),
				// Never in /wp/v2/settings: the token must not reach any REST answer.
				'show_in_rest'      => false,
			)
		);
	}

	/**
	 * The stored settings, each field read back through the same checks as a form: a stored value
	 * someone edited in the database is either valid or the default, never half-usable. Validated
	 * once per request and stored value.
	 *
	 * @return array<string, mixed>
	 */
	public static function get(): array {
		$stored = get_option( self::OPTION, array() );
		if ( null !== self::$validated && self::$validated['stored'] === $stored ) {
			return self::$validated['settings'];
		}
		$fields   = is_array( $stored ) ? $stored : array();
		$result   = self::validate( $fields, $fields );
		$settings = array_merge( self::defaults(), $result['settings'] );
		foreach ( array_keys( $result['errors'] ) as $field ) {
			$settings[ $field ] = self::defaults()[ $field ];
		}
		self::$validated = array(
			'stored'   => $stored,
			'settings' => $settings,
		);
		return $settings;
	}

	/** Whether the relay has what it needs to ask the service. */
	public static function is_complete( array $settings ): bool {
		return '' !== $settings['website_id'] && '' !== $settings['token'] && '' !== $settings['base_url'];
	}

	/**
	 * The Settings API's sanitize callback: all fields valid, or the previous value unchanged, with
	 * one admin notice per bad field.
	 *
	 * @param mixed $input The submitted form (or a value given to update_option).
	 * @return mixed
	 */
	public static function sanitize( $input ) {
		$previous = get_option( self::OPTION, array() );
		$previous = is_array( $previous ) ? $previous : array();
		$result   = self::validate( is_array( $input ) ? $input : array(), $previous );
		if ( array() === $result['errors'] ) {
			return array_merge( self::defaults(), $result['settings'] );
		}
		foreach ( $result['errors'] as $field => $message ) {
			// Outside wp-admin (code calling update_option) there is no notice to show: the value is refused all the same.
			if ( ! function_exists( 'add_settings_error' ) ) {
				break;
			}
			add_settings_error( self::OPTION, 'live_visitors_' . $field, $message, 'error' );
		}
		return $previous;
	}

	/**
	 * Checks every field; an empty token keeps the saved one (the form never shows it).
	 *
	 * @param array<string, mixed> $input    Submitted values.
	 * @param array<string, mixed> $previous The stored settings.
	 * @return array{settings: array<string, mixed>, errors: array<string, string>}
	 */
	public static function validate( array $input, array $previous ): array {
		$errors   = array();
		$settings = array();

		$website_id = self::text( $input['website_id'] ?? '' );
		if ( '' === $website_id ) {
			$errors['website_id'] = __( 'Website ID: enter your website\'s ID from the analytics service\'s dashboard.', 'live-visitors' );
		} elseif ( strlen( $website_id ) > Live_Visitors_Rules::MAX_IDENTIFIER_LENGTH || preg_match( '/[\x00-\x1f\x7f]/', $website_id ) ) {
			/* translators: %d: the longest website ID, in characters. */
			$errors['website_id'] = sprintf( __( 'Website ID: at most %d characters, on one line.', 'live-visitors' ), Live_Visitors_Rules::MAX_IDENTIFIER_LENGTH );
		}
		$settings['website_id'] = $website_id;

		$token = self::text( $input['token'] ?? '' );
		if ( '' === $token ) {
			$token = is_string( $previous['token'] ?? null ) ? $previous['token'] : '';
		}
		if ( '' === $token ) {
			$errors['token'] = __( 'API token: enter the token from the analytics service\'s dashboard.', 'live-visitors' );
		} elseif ( strlen( $token ) > Live_Visitors_Rules::MAX_IDENTIFIER_LENGTH || ! preg_match( '/' . str_replace( '/', '\/', Live_Visitors_Rules::BEARER_TOKEN_SYNTAX ) . '/', $token ) ) {
			// RFC 6750 `b64token`: the only token shape a Bearer header can carry.
			$errors['token'] = __( 'API token: paste only the token (letters, digits and - . _ ~ + / =), without "Bearer".', 'live-visitors' );
		}
		$settings['token'] = $token;

		$base_url = self::text( $input['base_url'] ?? '' );
		$base_url = rtrim( $base_url, '/' );
		if ( ! self::is_service_url( $base_url ) ) {
			$errors['base_url'] = __( 'Service base URL: an https:// address without a path to the API, query or password (http:// only for 127.0.0.1, ::1 or localhost).', 'live-visitors' );
		}
		$settings['base_url'] = $base_url;

		$interval = self::whole_number( $input['interval'] ?? '', 1, Live_Visitors_Rules::RELAY_MAX_INTERVAL_SECONDS );
		if ( null === $interval ) {
			/* translators: 1: the longest interval, 2: the element's own interval, both in seconds. */
			$errors['interval'] = sprintf( __( 'Interval: a whole number of seconds from 1 to %1$d (%2$d is the widget\'s own).', 'live-visitors' ), Live_Visitors_Rules::RELAY_MAX_INTERVAL_SECONDS, Live_Visitors_Rules::DEFAULT_INTERVAL_SECONDS );
		}
		$settings['interval'] = $interval ?? Live_Visitors_Rules::DEFAULT_INTERVAL_SECONDS;

		$max_stale = self::whole_number( $input['max_stale'] ?? '', 1, Live_Visitors_Rules::RELAY_MAX_MAX_STALE_SECONDS );
		if ( null === $max_stale || ( null !== $interval && $max_stale < $interval ) ) {
			/* translators: %d: the longest time to keep a count, in seconds. */
			$errors['max_stale'] = sprintf( __( 'Keep the last count for: a whole number of seconds, at least the interval and at most %d.', 'live-visitors' ), Live_Visitors_Rules::RELAY_MAX_MAX_STALE_SECONDS );
		}
		$settings['max_stale'] = $max_stale ?? Live_Visitors_Rules::DEFAULT_MAX_STALE_SECONDS;

		$budget = self::whole_number( $input['hourly_budget'] ?? '', 1, Live_Visitors_Rules::RELAY_MAX_HOURLY_BUDGET );
		if ( null === $budget ) {
			/* translators: %d: the largest hourly limit. */
			$errors['hourly_budget'] = sprintf( __( 'Hourly limit: a whole number of requests from 1 to %d (your plan\'s: 100 on Free, 1000 on Pro, 10000 on Enterprise).', 'live-visitors' ), Live_Visitors_Rules::RELAY_MAX_HOURLY_BUDGET );
		}
		$settings['hourly_budget'] = $budget ?? Live_Visitors_Rules::DEFAULT_HOURLY_BUDGET;

		// Kept as typed, markup included: it is escaped where it is printed, and shown as text.
		$sentence = self::text( $input['sentence'] ?? '' );
		if ( mb_strlen( $sentence ) > self::MAX_SENTENCE_LENGTH || preg_match( '/[\x00-\x1f\x7f]/', $sentence ) ) {
			/* translators: %d: the longest sentence, in characters. */
			$errors['sentence'] = sprintf( __( 'Default sentence: at most %d characters, on one line, with {count} where the number goes.', 'live-visitors' ), self::MAX_SENTENCE_LENGTH );
		}
		$settings['sentence'] = $sentence;

		$settings['show_on_products'] = ! empty( $input['show_on_products'] );

		return array(
			'settings' => $settings,
			'errors'   => $errors,
		);
	}

	/**
	 * Https, or http to this machine (a local service for development); no credentials, query or fragment.
	 *
	 * @param string $url The submitted base URL, without trailing slashes.
	 */
	public static function is_service_url( string $url ): bool {
		if ( '' === $url || strlen( $url ) > 2048 || preg_match( '/[\s\x00-\x1f\x7f]/', $url ) ) {
			return false;
		}
		$parts = wp_parse_url( $url );
		if ( ! is_array( $parts ) || empty( $parts['host'] ) || isset( $parts['user'] ) || isset( $parts['pass'] ) || isset( $parts['query'] ) || isset( $parts['fragment'] ) ) {
			return false;
		}
		$scheme = strtolower( $parts['scheme'] ?? '' );
		if ( 'https' === $scheme ) {
			return true;
		}
		return 'http' === $scheme && in_array( strtolower( $parts['host'] ), array( '127.0.0.1', 'localhost', '[::1]' ), true );
	}

	/**
	 * Forgets the cached answer when what it answered for changed.
	 *
	 * @param mixed $old_value The settings before.
	 * @param mixed $new_value The settings after.
	 */
	public static function forget_cached_answer( $old_value, $new_value ): void {
		$old = is_array( $old_value ) ? $old_value : array();
		$new = is_array( $new_value ) ? $new_value : array();
		foreach ( array( 'website_id', 'token', 'base_url' ) as $field ) {
			if ( ( $old[ $field ] ?? null ) !== ( $new[ $field ] ?? null ) ) {
				Live_Visitors_State_Store::forget_answer();
				return;
			}
		}
	}

	/**
	 * A trimmed string, or '' for anything else (options.php has already unslashed the form).
	 *
	 * @param mixed $value A submitted value.
	 */
	private static function text( $value ): string {
		return is_string( $value ) ? trim( $value ) : ( is_int( $value ) ? (string) $value : '' );
	}

	/**
	 * A whole number within the bounds, or null (a number with a unit, a fraction, or nothing).
	 *
	 * @param mixed $value A submitted value.
	 * @param int   $min   The smallest allowed.
	 * @param int   $max   The largest allowed.
	 */
	private static function whole_number( $value, int $min, int $max ): ?int {
		$text = is_int( $value ) ? (string) $value : self::text( $value );
		if ( ! preg_match( '/^\d{1,' . strlen( (string) $max ) . '}$/', $text ) ) {
			return null;
		}
		$number = (int) $text;
		return $number >= $min && $number <= $max ? $number : null;
	}
}
