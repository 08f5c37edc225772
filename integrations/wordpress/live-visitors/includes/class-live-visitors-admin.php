<?php
/**
 * Settings → Live visitors: the Settings API's form, for administrators only.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The settings page. options.php checks the nonce (`settings_fields`) and `manage_options`;
 * the token is never printed back, only whether one is saved.
 */
final class Live_Visitors_Admin {

	public const PAGE = 'live-visitors';

	public static function register_hooks(): void {
		add_action( 'admin_menu', array( self::class, 'add_page' ) );
		add_action( 'admin_init', array( self::class, 'add_fields' ) );
		add_filter( 'plugin_action_links_' . plugin_basename( LIVE_VISITORS_FILE ), array( self::class, 'settings_link' ) );
	}

	public static function add_page(): void {
		add_options_page( __( 'Live visitors', 'live-visitors' ), __( 'Live visitors', 'live-visitors' ), 'manage_options', self::PAGE, array( self::class, 'render_page' ) );
	}

	/**
	 * @param array<string> $links The plugin's links on the Plugins screen.
	 * @return array<string>
	 */
	public static function settings_link( array $links ): array {
		$links[] = '<a href="' . esc_url( admin_url( 'options-general.php?page=' . self::PAGE ) ) . '">' . esc_html__( 'Settings', 'live-visitors' ) . '</a>';
		return $links;
	}

	public static function add_fields(): void {
		add_settings_section( 'live_visitors_service', __( 'Your analytics service', 'live-visitors' ), '__return_null', self::PAGE );
		add_settings_section( 'live_visitors_display', __( 'On your pages', 'live-visitors' ), '__return_null', self::PAGE );
		$fields = array(
			'website_id'       => array( __( 'Website ID', 'live-visitors' ), 'live_visitors_service' ),
			'token'            => array( __( 'API token', 'live-visitors' ), 'live_visitors_service' ),
			'base_url'         => array( __( 'Service base URL', 'live-visitors' ), 'live_visitors_service' ),
			'interval'         => array( __( 'Interval (seconds)', 'live-visitors' ), 'live_visitors_service' ),
			'hourly_budget'    => array( __( 'Hourly limit (requests)', 'live-visitors' ), 'live_visitors_service' ),
			'max_stale'        => array( __( 'Keep the last count for (seconds)', 'live-visitors' ), 'live_visitors_service' ),
			'sentence'         => array( __( 'Default sentence', 'live-visitors' ), 'live_visitors_display' ),
			'show_on_products' => array( __( 'WooCommerce', 'live-visitors' ), 'live_visitors_display' ),
		);
		foreach ( $fields as $field => [ $title, $section ] ) {
			add_settings_field(
				'live_visitors_' . $field,
				$title,
				array( self::class, 'render_field' ),
				self::PAGE,
				$section,
				array(
					'field'     => $field,
					'label_for' => 'show_on_products' === $field ? null : 'live_visitors_' . $field,
				)
			);
		}
	}

	public static function render_page(): void {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to manage these settings.', 'live-visitors' ), '', array( 'response' => 403 ) );
		}
		// Notices (saved, or one per bad field) come from options-head.php, which Settings pages include.
		echo '<div class="wrap"><h1>' . esc_html( get_admin_page_title() ) . '</h1>';
		echo '<form method="post" action="' . esc_url( admin_url( 'options.php' ) ) . '">';
		settings_fields( Live_Visitors_Settings::GROUP );
		do_settings_sections( self::PAGE );
		submit_button();
		echo '</form>';
		self::render_status();
		echo '</div>';
	}

	/**
	 * One input of the form.
	 *
	 * @param array{field: string} $args Which field.
	 */
	public static function render_field( array $args ): void {
		$settings = Live_Visitors_Settings::get();
		$field    = $args['field'];
		$name     = Live_Visitors_Settings::OPTION . '[' . $field . ']';
		$id       = 'live_visitors_' . $field;
		switch ( $field ) {
			case 'token':
				// Never printed back: an empty field keeps the saved token.
				$saved = '' !== $settings['token'];
				printf(
					'<input type="password" id="%1$s" name="%2$s" value="" class="regular-text" autocomplete="new-password" placeholder="%3$s" /><p class="description">%4$s</p>',
					esc_attr( $id ),
					esc_attr( $name ),
					esc_attr( $saved ? '••••••••••••' : '' ),
					esc_html( $saved ? __( 'A token is saved (hidden). Leave this empty to keep it, or enter a new one. It stays on this server: it never reaches a page.', 'live-visitors' ) : __( 'From your analytics service\'s dashboard. It stays on this server: it never reaches a page.', 'live-visitors' ) )
				);
				return;
			case 'show_on_products':
				printf(
					'<label><input type="checkbox" name="%1$s" value="1" %2$s /> %3$s</label><p class="description">%4$s</p>',
					esc_attr( $name ),
					checked( $settings['show_on_products'], true, false ),
					esc_html__( 'Show on product pages (under the price)', 'live-visitors' ),
					esc_html( class_exists( 'WooCommerce' ) ? __( 'WooCommerce is active.', 'live-visitors' ) : __( 'Takes effect when WooCommerce is active.', 'live-visitors' ) )
				);
				return;
		}
		$descriptions = array(
			/* translators: %s: the API's path, /api/v1/realtime. */
			'base_url'      => sprintf( __( 'Where the service\'s API lives, e.g. https://analytics.example.com (the plugin asks {base}%s).', 'live-visitors' ), Live_Visitors_Rules::REALTIME_PATH ),
			'interval'      => __( 'The whole site asks the service at most once per interval, whatever the number of shoppers. 60 is the widget\'s own.', 'live-visitors' ),
			'hourly_budget' => __( 'Your plan\'s requests per hour (Free 100, Pro 1000, Enterprise 10000): the plugin never sends more in any hour.', 'live-visitors' ),
			'max_stale'     => __( 'While the service fails, shoppers see the last count this long, then the fallback.', 'live-visitors' ),
			'sentence'      => __( 'With {count} where the number goes, e.g. "{count} people are looking at this right now". Empty: the element\'s own sentence, in the page\'s language.', 'live-visitors' ),
		);
		$numeric = in_array( $field, array( 'interval', 'hourly_budget', 'max_stale' ), true );
		printf(
			'<input type="text" inputmode="%1$s" id="%2$s" name="%3$s" value="%4$s" class="regular-text" />',
			esc_attr( $numeric ? 'numeric' : 'text' ),
			esc_attr( $id ),
			esc_attr( $name ),
			esc_attr( (string) $settings[ $field ] )
		);
		if ( isset( $descriptions[ $field ] ) ) {
			echo '<p class="description">' . esc_html( $descriptions[ $field ] ) . '</p>';
		}
	}

	/** What the last request to the service brought, for the site owner (the service's words, token redacted). */
	private static function render_status(): void {
		$settings = Live_Visitors_Settings::get();
		if ( ! Live_Visitors_Settings::is_complete( $settings ) ) {
			return;
		}
		$state = Live_Visitors_Relay::last_outcome();
		echo '<h2>' . esc_html__( 'Status', 'live-visitors' ) . '</h2><p>';
		if ( null !== $state['answer'] ) {
			$report = json_decode( $state['answer']['body'], true );
			/* translators: 1: a number of visitors, 2: seconds. */
			echo esc_html( sprintf( __( 'Last count from the service: %1$d, %2$d s ago.', 'live-visitors' ), (int) ( $report['currentVisitors'] ?? 0 ), intdiv( Live_Visitors_Relay::now_ms() - $state['answer']['fetched_at_ms'], 1000 ) ) ) . ' ';
		} else {
			echo esc_html__( 'No count yet: the first shopper\'s page asks for one.', 'live-visitors' ) . ' ';
		}
		if ( null !== $state['failure'] ) {
			/* translators: %s: what happened, in the plugin's words (e.g. "answered 401: check the API token…"). */
			echo esc_html( sprintf( __( 'Last failure: the analytics service %s.', 'live-visitors' ), $state['failure']['reason'] ) );
			if ( null !== $state['failure']['said'] ) {
				/* translators: %s: the service's own words, the token taken out. */
				echo ' ' . esc_html( sprintf( __( 'It said: "%s".', 'live-visitors' ), $state['failure']['said'] ) );
			}
		}
		echo '</p>';
	}
}
