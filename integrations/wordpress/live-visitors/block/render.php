<?php
/**
 * Server-side render of the Live visitors block: the element with this block's settings.
 *
 * @package LiveVisitors
 *
 * @var array<string, mixed> $attributes The block's attributes.
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

// Escaped where it is built (esc_attr on every value; the wrapper's attributes by WordPress). Not through
// wp_kses: its CSS filter drops `display` in 6.1, and the element's reserved lines need it.
echo Live_Visitors_Element::markup( $attributes, get_block_wrapper_attributes() );
