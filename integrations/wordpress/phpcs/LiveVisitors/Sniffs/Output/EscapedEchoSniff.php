<?php
/**
 * Every `echo`, `print`, `<?=` and `printf` argument must be escaped where it is printed.
 *
 * @package LiveVisitors
 */

namespace LiveVisitors\Sniffs\Output;

use PHP_CodeSniffer\Files\File;
use PHP_CodeSniffer\Sniffs\Sniff;

/**
 * A small stand-in for WPCS's `WordPress.Security.EscapeOutput` (not in Debian): what is printed is
 * a literal string, or the result of an escaping function, or a concatenation of those.
 */
final class EscapedEchoSniff implements Sniff {

	/** Functions whose result is safe to print; `Live_Visitors_Element::markup` escapes every value itself. */
	private const ESCAPING = array(
		'esc_html',
		'esc_attr',
		'esc_url',
		'esc_js',
		'esc_textarea',
		'esc_html__',
		'esc_attr__',
		'wp_kses',
		'wp_kses_post',
		'absint',
		'intval',
		'checked',
		'selected',
		'live_visitors_element::markup',
	);

	/** @return array<int|string> */
	public function register(): array {
		return array( T_ECHO, T_PRINT, T_OPEN_TAG_WITH_ECHO, T_STRING );
	}

	/**
	 * @param File $file     The file.
	 * @param int  $position The token.
	 */
	public function process( File $file, $position ): void {
		$tokens = $file->getTokens();
		if ( T_STRING === $tokens[ $position ]['code'] ) {
			$this->process_printf( $file, $position );
			return;
		}
		$end = $file->findNext( array( T_SEMICOLON, T_CLOSE_TAG ), $position + 1 );
		$this->check_expression( $file, $position + 1, (int) $end, $tokens[ $position ]['content'] );
	}

	/** `printf( 'format', $a, $b )`: the format is a literal, every other argument escaped. */
	private function process_printf( File $file, int $position ): void {
		$tokens = $file->getTokens();
		if ( ! in_array( strtolower( $tokens[ $position ]['content'] ), array( 'printf', 'vprintf' ), true ) ) {
			return;
		}
		$open = $file->findNext( T_WHITESPACE, $position + 1, null, true );
		if ( false === $open || T_OPEN_PARENTHESIS !== $tokens[ $open ]['code'] ) {
			return;
		}
		$close = $tokens[ $open ]['parenthesis_closer'];
		$start = $open + 1;
		$first = true;
		for ( $index = $start; $index <= $close; $index++ ) {
			$at_depth = $tokens[ $index ]['nested_parenthesis'] ?? array();
			$is_end   = $index === $close || ( T_COMMA === $tokens[ $index ]['code'] && end( $at_depth ) === $close && count( $at_depth ) === count( $tokens[ $open ]['nested_parenthesis'] ?? array() ) + 1 );
			if ( ! $is_end ) {
				continue;
			}
			if ( ! $first ) {
				$this->check_expression( $file, $start, $index, 'printf' );
			}
			$first = false;
			$start = $index + 1;
		}
	}

	/**
	 * Parts joined by `.` at the top level: each a literal string or one escaping call.
	 *
	 * @param File   $file  The file.
	 * @param int    $start First token of the expression.
	 * @param int    $end   The token after it.
	 * @param string $what  What prints it, for the message.
	 */
	private function check_expression( File $file, int $start, int $end, string $what ): void {
		$tokens = $file->getTokens();
		$index  = $start;
		while ( $index < $end ) {
			$index = (int) $file->findNext( T_WHITESPACE, $index, $end, true );
			if ( 0 === $index || $index >= $end ) {
				return;
			}
			$after = $this->safe_part_end( $file, $index, $end );
			if ( null === $after ) {
				$file->addError( 'Output of %s is not escaped: print a literal or the result of esc_html(), esc_attr(), esc_url()…', $index, 'EscapedEcho', array( $what ) );
				return;
			}
			$next = $file->findNext( T_WHITESPACE, $after, $end, true );
			if ( false === $next ) {
				return;
			}
			if ( T_STRING_CONCAT !== $tokens[ $next ]['code'] ) {
				$file->addError( 'Output of %s is not escaped: print a literal or the result of esc_html(), esc_attr(), esc_url()…', $next, 'EscapedEcho', array( $what ) );
				return;
			}
			$index = $next + 1;
		}
	}

	/** The token after a safe part starting at `$index`, or null when the part is not safe. */
	private function safe_part_end( File $file, int $index, int $end ): ?int {
		$tokens = $file->getTokens();
		if ( in_array( $tokens[ $index ]['code'], array( T_CONSTANT_ENCAPSED_STRING, T_LNUMBER ), true ) ) {
			return $index + 1;
		}
		$name  = '';
		$probe = $index;
		while ( $probe < $end && in_array( $tokens[ $probe ]['code'], array( T_STRING, T_DOUBLE_COLON, T_NS_SEPARATOR ), true ) ) {
			$name .= $tokens[ $probe ]['content'];
			++$probe;
		}
		$open = $file->findNext( T_WHITESPACE, $probe, $end, true );
		if ( '' === $name || false === $open || T_OPEN_PARENTHESIS !== $tokens[ $open ]['code'] || ! in_array( strtolower( ltrim( $name, '\\' ) ), self::ESCAPING, true ) ) {
			return null;
		}
		return $tokens[ $open ]['parenthesis_closer'] + 1;
	}
}
