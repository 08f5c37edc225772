import rules from './rules.json' with { type: 'json' };

/** What stands in for a secret in every text that leaves the element or the relay. */
export const REDACTED = rules.redactedText;
/** Enough for any real error message of a service; the rest would only fill consoles and logs. */
const MAX_MESSAGE_LENGTH = rules.maxServiceWordsLength;

/** `text` without any of `secrets`, plain or URL-encoded (longest first, so one inside another goes whole). */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  return secrets
    .flatMap((secret) => (secret ? [secret, encodeURIComponent(secret)] : []))
    .sort((a, b) => b.length - a.length)
    .reduce((clean, secret) => clean.replaceAll(secret, REDACTED), text);
}

/**
 * The service's own words in an error answer (JSON `{ error }` or `{ message }`, or short plain
 * text), made safe to print: every secret redacted first, then control characters and quotes
 * folded, then shortened. In that order, so shortening can never cut a secret into a piece that
 * no redaction recognises.
 */
export function serviceMessage(body: string, contentType: string | null, secrets: readonly (string | undefined)[]): string | null {
  let text: unknown = contentType?.startsWith('text/plain') ? body : null;
  try {
    const json = JSON.parse(body) as { error?: unknown; message?: unknown } | null;
    text = json?.error ?? json?.message ?? text;
  } catch {
    // A broken error body is no reason to hide the status.
  }
  if (typeof text !== 'string') return null;
  // Control characters and quotes would break the quoting of the message or a log line.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
  const folded = redact(text, secrets).replace(/[\x00-\x1f\x7f-\x9f"\s]+/g, ' ');
  const clean = folded.trim();
  if (!clean) return null;
  return clean.length > MAX_MESSAGE_LENGTH ? `${clean.slice(0, MAX_MESSAGE_LENGTH)}…` : clean;
}
