<?php
/**
 * The test theme's only template.
 *
 * @package LiveVisitorsTest
 */

?><!doctype html>
<html <?php language_attributes(); ?>>
<head>
<meta charset="<?php bloginfo( 'charset' ); ?>">
<?php wp_head(); ?>
</head>
<body>
<?php
while ( have_posts() ) :
	the_post();
	?>
	<article>
		<h1><?php the_title(); ?></h1>
		<?php the_content(); ?>
		<?php if ( get_post_meta( get_the_ID(), 'live_visitors_test_product', true ) ) : ?>
			<div class="summary entry-summary">
				<?php
				// WooCommerce's content-single-product.php runs this hook; its price and excerpt are in woocommerce-hook.php.
				do_action( 'woocommerce_single_product_summary' );
				?>
			</div>
		<?php endif; ?>
	</article>
	<?php
endwhile;
wp_footer();
?>
</body>
</html>
