<?php
/**
 * WooCommerce cannot be installed here (no network). This must-use plugin stands in for the two
 * callbacks WooCommerce hangs on its single-product hook around the plugin's (the price at 10, the
 * excerpt at 20), so the test theme's `do_action( 'woocommerce_single_product_summary' )` prints a
 * summary in WooCommerce's order.
 *
 * @package LiveVisitorsTest
 */

add_action(
	'woocommerce_single_product_summary',
	function () {
		echo '<p class="price">€10.00</p>';
	},
	10
);
add_action(
	'woocommerce_single_product_summary',
	function () {
		echo '<div class="woocommerce-product-details__short-description">A short description.</div>';
	},
	20
);
