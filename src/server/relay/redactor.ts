/** What stands in for a secret in every text the relay lets out. */
export const REDACTED = '[token]';

/**
 * Removes the configured tokens from text that may have picked one up (an upstream error
 * message echoing the header, an exception from a custom fetch), in plain and URL-encoded form.
 * The relay's own texts never contain a token; this is the second line of defence.
 */
export class Redactor {
  readonly #secrets: readonly string[];

  constructor(secrets: Iterable<string>) {
    const forms = new Set<string>();
    for (const secret of secrets) {
      if (secret === '') continue;
      forms.add(secret);
      forms.add(encodeURIComponent(secret));
    }
    // Longest first, so a token that contains another one is replaced whole.
    this.#secrets = [...forms].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let clean = text;
    for (const secret of this.#secrets) clean = clean.replaceAll(secret, REDACTED);
    return clean;
  }
}
