import { INVISIBLE, printableWords, REDACTED } from '../../src/contract/service-message.js';

/**
 * Every way a service (or a library's error) is known to hand a secret back: as it is, with its
 * slashes JSON-escaped (`\/`), URL-encoded (also with `~` as `%7E`, as PHP's and Java's encoders
 * write it, and twice over; `Redactor` also finds any other choice of bytes to encode), form-encoded
 * (a space as `+`), in base64 or base64url at any of the three byte alignments it can sit
 * at inside a longer text, in hex, and in any letter case (matched case-insensitively).
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>();
  const encoded = new Set<string>();
  for (const variant of [secret, secret.toLowerCase(), secret.toUpperCase()]) {
    forms.add(variant);
    forms.add(variant.replaceAll('/', '\\/'));
    // Form-encoded, a space is a `+`.
    forms.add(variant.replaceAll(' ', '+'));
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
 * The named character references of HTML that stand for printable ASCII characters, the only
 * characters a secret holds (`fjlig` stands for two). Any other named reference cannot spell a
 * secret, so it is left as written.
 */
const ASCII_REFERENCES: Readonly<Record<string, string>> = {
  excl: '!',
  quot: '"',
  QUOT: '"',
  num: '#',
  dollar: '$',
  percnt: '%',
  amp: '&',
  AMP: '&',
  apos: "'",
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  lt: '<',
  LT: '<',
  equals: '=',
  gt: '>',
  GT: '>',
  quest: '?',
  commat: '@',
  lsqb: '[',
  lbrack: '[',
  bsol: '\\',
  rsqb: ']',
  rbrack: ']',
  Hat: '^',
  lowbar: '_',
  UnderBar: '_',
  grave: '`',
  DiacriticalGrave: '`',
  lcub: '{',
  lbrace: '{',
  verbar: '|',
  vert: '|',
  VerticalLine: '|',
  rcub: '}',
  rbrace: '}',
  fjlig: 'fj',
  Tab: '\t',
  NewLine: '\n',
};

/** `&#97;`, `&#x61;` (semicolon optional, as HTML reads them) and the references above; `&amp`, `&lt`, `&gt`, `&quot` also without one. */
const CHARACTER_REFERENCE = /&(?:#(\d{1,8});?|#[xX]([\da-fA-F]{1,8});?|([A-Za-z]{2,16});|(amp|lt|gt|quot)(?![\w;]))/g;

/**
 * Text with HTML's character references written out, as a page showing it would: a service that
 * escapes what it echoes (`&#x74;&#x6f;&#x6b;…`) hands the secret back all the same. Twice over at
 * most (`&amp;#x74;`); what is not a reference, or not one a secret could be made of, stays.
 */
export function withCharacterReferencesRead(text: string): string {
  let read = text;
  for (let pass = 0; pass < 3 && read.includes('&'); pass += 1) {
    const next = read.replace(CHARACTER_REFERENCE, (reference, decimal?: string, hex?: string, named?: string, bare?: string) => {
      if (named !== undefined || bare !== undefined) return ASCII_REFERENCES[(named ?? bare) as string] ?? reference;
      const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex as string, 16);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : reference;
    });
    if (next === read) break;
    read = next;
  }
  return read;
}

/**
 * Makes text safe to print where secrets must never appear (logs, and the relay's own messages):
 * HTML's character references read (a secret echoed as `&#x61;…` is still the secret), invisible
 * characters removed (so none can split a secret from its redaction), then every known form of
 * every secret replaced by `[token]`.
 */
export class Redactor {
  /** The patterns cleaned with, in order; each built on first use and shared by every redactor made with `and`. */
  readonly #patterns: readonly SecretsPattern[];

  constructor(secrets: readonly (string | null | undefined)[], patterns?: readonly SecretsPattern[]) {
    this.#patterns = patterns ?? [new SecretsPattern(secrets)];
  }

  /**
   * This redactor, then `other`: a text is cleaned of the secrets either knows. Each keeps its own
   * pattern, so the relay's shared secrets are compiled once, not again for every website or source.
   */
  and(other: Redactor): Redactor {
    return new Redactor([], [...this.#patterns, ...other.#patterns]);
  }

  /** `text` without invisible characters or any form of a secret. */
  clean(text: string): string {
    let clean = withCharacterReferencesRead(text).replace(INVISIBLE, '');
    for (const secrets of this.#patterns) {
      const pattern = secrets.pattern;
      if (pattern) clean = redactDecoded(clean.replace(pattern, REDACTED), pattern);
    }
    return clean;
  }

  /** Someone else's words (a service's error text) for a log line: cleaned, then `printableWords`. */
  words(text: string): string | null {
    return printableWords(this.clean(text));
  }
}

/** Every form of some secrets as one pattern, compiled on first use (a website's redactor may never be asked). */
class SecretsPattern {
  #secrets: readonly (string | null | undefined)[] | undefined;
  #pattern: RegExp | undefined;

  constructor(secrets: readonly (string | null | undefined)[]) {
    this.#secrets = secrets;
  }

  get pattern(): RegExp | undefined {
    if (this.#secrets !== undefined) {
      const forms = [...new Set(this.#secrets.flatMap((secret) => (secret ? secretForms(secret) : [])))].sort(
        (a, b) => b.length - a.length,
      );
      this.#pattern = forms.length === 0 ? undefined : new RegExp(forms.map(escapeRegExp).join('|'), 'gi');
      this.#secrets = undefined;
    }
    return this.#pattern;
  }
}

/**
 * `text` with `pattern`'s matches redacted in what it says once every percent-escape (`%XX`, or
 * `%25XX` encoded twice) and JSON-escaped slash is read: encoders differ in what they encode
 * (encodeURIComponent leaves `~`, Go's path escaping `+` and `=`, some encode every byte), so a
 * secret is looked for in what the text spells, and the escapes that spell it are replaced. (One
 * pattern of every way to spell each character would be hundreds of times slower to search.)
 */
function redactDecoded(text: string, pattern: RegExp): string {
  if (!text.includes('%') && !text.includes('\\/')) return text;
  const { decoded, starts } = decodeEscapes(text);
  let redacted = '';
  let done = 0;
  for (const match of decoded.matchAll(pattern)) {
    redacted += text.slice(done, starts[match.index]) + REDACTED;
    done = starts[match.index + match[0].length]!;
  }
  return redacted + text.slice(done);
}

/** A percent-escape (its byte's hex) or a JSON-escaped slash. */
const ESCAPE = /%(?:25)?([0-9a-f]{2})|\\\//gi;

/**
 * `text` read with its percent-escapes (UTF-8, as URLs carry it) and `\/` decoded, and where in
 * `text` each of its UTF-16 units starts (`starts[decoded.length]` is `text.length`). Escapes of
 * no whole character are left as they are.
 */
function decodeEscapes(text: string): { decoded: string; starts: number[] } {
  const escapes = [...text.matchAll(ESCAPE)];
  let decoded = '';
  const starts: number[] = [];
  const read = (spelled: string, start: number, step: number) => {
    decoded += spelled;
    for (let unit = 0; unit < spelled.length; unit++) starts.push(start + unit * step);
  };
  let done = 0;
  for (let index = 0; index < escapes.length; ) {
    const first = escapes[index]!;
    read(text.slice(done, first.index), done, 1);
    // The bytes of escapes that follow one another: a character beyond ASCII takes up to four.
    const bytes: number[] = [];
    for (
      let next = index, at = first.index;
      escapes[next]?.index === at && escapes[next]![1] && bytes.length < 4;
      at += escapes[next++]![0].length
    ) {
      bytes.push(Number.parseInt(escapes[next]![1]!, 16));
    }
    const character = firstCharacter(bytes);
    if (character) read(character, first.index, 0);
    else read(first[1] ? first[0] : '/', first.index, first[1] ? 1 : 0);
    index += character ? utf8(character).length : 1;
    const last = escapes[index - 1]!;
    done = last.index + last[0].length;
  }
  read(text.slice(done), done, 1);
  starts.push(text.length);
  return { decoded, starts };
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The character that `bytes` begin with, if they begin with a whole one. */
function firstCharacter(bytes: readonly number[]): string | undefined {
  if (bytes.length === 0) return undefined;
  const length = bytes[0]! < 0x80 ? 1 : bytes[0]! >= 0xf0 ? 4 : bytes[0]! >= 0xe0 ? 3 : 2;
  try {
    return STRICT_UTF8.decode(new Uint8Array(bytes.slice(0, length)));
  } catch {
    return undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
