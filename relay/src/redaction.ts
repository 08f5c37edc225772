import { INVISIBLE, printableWords, REDACTED } from '../../src/contract/service-message.js';

/**
 * Every way a service (or a library's error) is known to hand a secret back: as it is, with its
 * slashes JSON-escaped (`\/`), URL-encoded (also with `~` as `%7E`, as PHP's and Java's encoders
 * write it, and twice over), in base64 or base64url at any of the three byte alignments it can sit
 * at inside a longer text, in hex, and in any letter case (matched case-insensitively).
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>();
  const encoded = new Set<string>();
  for (const variant of [secret, secret.toLowerCase(), secret.toUpperCase()]) {
    forms.add(variant);
    forms.add(variant.replaceAll('/', '\\/'));
    for (const once of [encodeURIComponent(variant), encodeURIComponent(variant).replaceAll('~', '%7E')]) {
      forms.add(once);
      forms.add(encodeURIComponent(once));
    }
    encoded.add([...utf8(variant)].map((byte) => byte.toString(16).padStart(2, '0')).join(''));
    for (const base64 of alignedBase64(variant)) {
      encoded.add(base64);
      encoded.add(base64.replaceAll('+', '-').replaceAll('/', '_'));
    }
  }
  // A fragment of a very short secret's encoding would match ordinary words; a real token's are a dozen characters and more.
  for (const form of encoded) if (form.length >= 4) forms.add(form);
  return [...forms];
}

/**
 * The base64 characters that depend only on `text`'s bytes, for each of the three offsets at which
 * the text can start inside a longer encoded value ("Bearer <token>", a JSON blob…).
 */
function alignedBase64(text: string): string[] {
  const bytes = utf8(text);
  return [0, 1, 2].map((offset) => {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = btoa(String.fromCharCode(...padded));
    const start = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    return encoded.slice(start, end);
  });
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/**
 * Makes text safe to print where secrets must never appear (logs, and the relay's own messages):
 * invisible characters removed first (so none can split a secret from its redaction), then every
 * known form of every secret replaced by `[token]`.
 */
export class Redactor {
  readonly #pattern: RegExp | undefined;

  constructor(secrets: readonly (string | null | undefined)[]) {
    const forms = [...new Set(secrets.flatMap((secret) => (secret ? secretForms(secret) : [])))].sort((a, b) => b.length - a.length);
    this.#pattern = forms.length === 0 ? undefined : new RegExp(forms.map(escapeRegExp).join('|'), 'gi');
  }

  /** `text` without invisible characters or any form of a secret. */
  clean(text: string): string {
    const visible = text.replace(INVISIBLE, '');
    return this.#pattern ? visible.replace(this.#pattern, REDACTED) : visible;
  }

  /** Someone else's words (a service's error text) for a log line: cleaned, then `printableWords`. */
  words(text: string): string | null {
    return printableWords(this.clean(text));
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
