<?php
/**
 * Server-side render of the Live visitors block: the element with this block's settings.
 *
 * @package LiveVisitors
 *
 * @var array<string, mixed> $attributes The block's attributes.
 */

defined( 'ABSPATH' ) || exit;

echo wp_kses( Live_Visitors_Element::markup( $attributes, get_block_wrapper_attributes() ), Live_Visitors_Element::allowed_html() );
