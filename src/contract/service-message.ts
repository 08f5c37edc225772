import rules from './rules.json' with { type: 'json' };

/** What stands in for a secret in every text that leaves the element or the relay. */
export const REDACTED = rules.redactedText;

/**
 * Invisible characters (controls, bidi overrides such as U+202E, zero-width joiners) that could
 * disguise text or split a secret from its redaction: every cleaner removes them first.
 */
export const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** `text` without any of `secrets`, plain or URL-encoded (longest first, so one inside another goes whole). */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  return secrets
    .flatMap((secret) => (secret ? [secret, encodeURIComponent(secret)] : []))
    .sort((a, b) => b.length - a.length)
    .reduce((clean, secret) => clean.replaceAll(secret, REDACTED), text);
}

/**
 * A service's own words in an error answer, as it wrote them: JSON `{ "error": "…" }`,
 * `{ "error": { "message": "…" } }` (Umami's, Google's) or `{ "message": "…" }`, or a plain-text
 * body; never an HTML page; null when it said nothing. The whole (already capped) body is read,
 * never a first part of it, so no secret in it is cut in two before a redaction sees it. Not yet
 * safe to print: clean them of secrets, then `printableWords`.
 */
export function readServiceWords(body: string, contentType: string | null): string | null {
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown } | null;
    const error = json?.error;
    const said = typeof error === 'object' && error !== null ? error.message : (error ?? json?.message);
    if (typeof said === 'string') return said;
  } catch {
    // Not JSON: plain text may still say something, and a broken error body is no reason to hide the status.
  }
  return contentType?.startsWith('text/plain') ? body : null;
}

/**
 * Someone else's words, already cleaned of secrets, made fit for a console or a log line: only
 * printable ASCII, quotes made plain apostrophes (they would break the quoting around them), white
 * space folded, shortened last (so shortening never cuts a secret into a piece no redaction
 * recognises). Null when nothing is left.
 */
export function printableWords(cleaned: string): string | null {
  const safe = cleaned
    .replace(/["\\`]/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/[^\x20-\x7e]+/g, '?')
    .trim();
  if (!safe) return null;
  return safe.length > rules.maxServiceWordsLength ? `${safe.slice(0, rules.maxServiceWordsLength)}…` : safe;
}

/**
 * The service's words in an error answer, made safe to print for the element's console: invisible
 * characters made spaces (a token in a page is no secret from its readers, so words are kept
 * apart rather than searched for split tokens, as the relay's `Redactor` does), every secret
 * redacted, then `printableWords`.
 */
export function serviceMessage(body: string, contentType: string | null, secrets: readonly (string | undefined)[]): string | null {
  const said = readServiceWords(body, contentType);
  return said === null ? null : printableWords(redact(said.replace(INVISIBLE, ' '), secrets));
}
