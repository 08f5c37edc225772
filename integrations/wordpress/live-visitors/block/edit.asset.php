<?php
/**
 * The editor script's dependencies (WordPress 6.1 requires this file beside a block's script).
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

return array(
	'dependencies' => array( 'wp-blocks', 'wp-element', 'wp-block-editor', 'wp-components', 'wp-i18n' ),
	'version'      => '0.1.0',
);
