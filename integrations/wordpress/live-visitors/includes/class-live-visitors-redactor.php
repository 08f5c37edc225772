<?php
/**
 * Every known form of the token, taken out of any text before it is logged or shown.
 *
 * @package LiveVisitors
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The Node relay's `Redactor` (`relay/src/redaction.ts`) in PHP, held to the same cases
 * (`src/contract/cases/redaction.json`): the token as it is, in any letter case, percent-encoded by
 * any encoder (any of its bytes, upper- or lower-case hex, once or twice), with `/` JSON-escaped as
 * `\/`, form-encoded (a space as `+`), in base64 or base64url at each of the three byte alignments
 * it can sit at inside a longer encoded value (`Bearer <token>`), and in hex. Its one pattern spells
 * each character every way; the Node relay, which knows many secrets, decodes the text instead.
 */
final class Live_Visitors_Redactor {

	/** Invisible characters (controls, bidi overrides, zero-width joiners) that could disguise text or split a secret. */
	private const INVISIBLE = '/[\p{Cc}\p{Cf}\x{2028}\x{2029}]/u';

	/** A case-insensitive pattern of every form of every secret, or null when there is none. */
	private ?string $pattern;

	/**
	 * @param array<string|null> $secrets The secrets (an empty or null one is skipped).
	 */
	public function __construct( array $secrets ) {
		$alternatives = array();
		$known        = array_map( fn ( string $secret ): string => mb_scrub( $secret, 'UTF-8' ), array_filter( $secrets, fn ( $secret ) => is_string( $secret ) && '' !== $secret ) );
		// Longest first, so a secret inside another goes whole.
		usort( $known, fn ( string $a, string $b ): int => strlen( $b ) - strlen( $a ) );
		foreach ( $known as $secret ) {
			$alternatives[] = self::spelled_any_way( $secret );
			$encoded        = self::encoded_forms( $secret );
			usort( $encoded, fn ( string $a, string $b ): int => strlen( $b ) - strlen( $a ) );
			foreach ( $encoded as $form ) {
				$alternatives[] = preg_quote( $form, '/' );
			}
		}
		$this->pattern = array() === $alternatives ? null : '/' . implode( '|', array_unique( $alternatives ) ) . '/iu';
	}

	/** A redactor of the plugin's token. */
	public static function for_token( string $token ): self {
		return new self( array( $token ) );
	}

	/**
	 * `$text` without invisible characters (removed first, so none can split a secret from its
	 * redaction) or any form of a secret.
	 *
	 * @param string $text Any text, valid UTF-8 or not.
	 */
	public function clean( string $text ): string {
		$visible = (string) preg_replace( self::INVISIBLE, '', mb_scrub( $text, 'UTF-8' ) );
		return null === $this->pattern ? $visible : (string) preg_replace( $this->pattern, Live_Visitors_Rules::REDACTED_TEXT, $visible );
	}

	/**
	 * Someone else's words (a service's error text) for a log line or the settings page: cleaned,
	 * then only printable ASCII without quotes kept, shortened last (so shortening never cuts a
	 * secret into a piece no redaction recognises). Null when nothing is left.
	 *
	 * @param string $text The words.
	 */
	public function words( string $text ): ?string {
		$safe = $this->clean( $text );
		$safe = str_replace( array( '"', '\\', '`' ), "'", $safe );
		// White space of any kind (a no-break space too) folded before the rest beyond ASCII is made `?`.
		$safe = (string) preg_replace( '/[\s\p{Zs}]+/u', ' ', $safe );
		$safe = trim( (string) preg_replace( '/[^\x20-\x7e]+/', '?', $safe ) );
		if ( '' === $safe ) {
			return null;
		}
		$limit = Live_Visitors_Rules::MAX_SERVICE_WORDS_LENGTH;
		return strlen( $safe ) > $limit ? substr( $safe, 0, $limit ) . '…' : $safe;
	}

	/**
	 * The secret with each character as it is or URL-encoded, whichever an encoder chose: each of
	 * its UTF-8 bytes (of its lower- or upper-case form too) as `%XX` or, encoded twice, `%25XX`
	 * (any hex case, under the pattern's `i`); a `/` also JSON-escaped, a space also form-encoded as `+`.
	 *
	 * @param string $secret The secret, valid UTF-8.
	 */
	private static function spelled_any_way( string $secret ): string {
		$percent_encoded = fn ( string $text ): string => implode( '', array_map( fn ( string $byte ): string => '%(?:25)?' . bin2hex( $byte ), str_split( $text ) ) );
		$pattern         = '';
		foreach ( mb_str_split( $secret ) as $character ) {
			$ways = array( preg_quote( $character, '/' ) );
			foreach ( array( $character, mb_strtolower( $character ), mb_strtoupper( $character ) ) as $variant ) {
				$ways[] = $percent_encoded( $variant );
			}
			if ( '/' === $character ) {
				$ways[] = '\\\\\/';
			}
			if ( ' ' === $character ) {
				$ways[] = '\\+';
			}
			$pattern .= '(?:' . implode( '|', array_unique( $ways ) ) . ')';
		}
		return $pattern;
	}

	/**
	 * Base64 and base64url at each alignment, and hex, of the secret in each letter case. A
	 * fragment of a very short secret's encoding would match ordinary words; a real token's are a
	 * dozen characters and more.
	 *
	 * @param string $secret The secret.
	 * @return array<string>
	 */
	private static function encoded_forms( string $secret ): array {
		$forms = array();
		foreach ( array_unique( array( $secret, mb_strtolower( $secret ), mb_strtoupper( $secret ) ) ) as $variant ) {
			$forms[] = bin2hex( $variant );
			foreach ( array( 0, 1, 2 ) as $offset ) {
				$encoded = base64_encode( str_repeat( "\0", $offset ) . $variant );
				$start   = (int) ceil( $offset * 8 / 6 );
				$end     = (int) floor( ( $offset + strlen( $variant ) ) * 8 / 6 );
				$aligned = substr( $encoded, $start, $end - $start );
				$forms[] = $aligned;
				$forms[] = strtr( $aligned, '+/', '-_' );
			}
		}
		return array_values( array_unique( array_filter( $forms, fn ( string $form ): bool => strlen( $form ) >= 4 ) ) );
	}
}
