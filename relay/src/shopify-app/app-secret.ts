/**
 * The Shopify app's client secret as an HMAC-SHA256 key: it signs the admin's launch URL, the
 * session tokens, the webhooks and the App Proxy's requests. Only Web Crypto, so every check runs
 * on Node, Workers, Deno, Bun and the edge runtimes alike.
 */
export class AppSecret {
  readonly #secret: string;
  #key: Promise<CryptoKey> | undefined;

  constructor(secret: string) {
    this.#secret = secret;
  }

  /** Whether `signature` is this secret's HMAC of `data`; compared in constant time, never throws. */
  async signed(signature: Uint8Array<ArrayBuffer>, data: string | Uint8Array): Promise<boolean> {
    try {
      const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data);
      // verify() compares in constant time: no timing tells how much of a forged signature was right.
      return await crypto.subtle.verify('HMAC', await this.#importKey(), signature, bytes);
    } catch {
      // A key the runtime refuses to import verifies nothing: the request stays refused.
      return false;
    }
  }

  #importKey(): Promise<CryptoKey> {
    this.#key ??= crypto.subtle.importKey('raw', new TextEncoder().encode(this.#secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'verify',
    ]);
    return this.#key;
  }
}

/**
 * How far a signed `timestamp` (the admin's launch, the App Proxy's requests) may be from this
 * server's clock, either way, in seconds. Shopify signs each request as it sends it, so a real one
 * is a second or two old; the margin is for clocks that drift. An older signed URL replayed from a
 * log is refused.
 */
export const SIGNED_TIME_MAX_SKEW_SECONDS = 90;

/** Seconds between a signed `timestamp` (whole seconds since the epoch) and the clock, either way; NaN when it is no such number. */
export function signedTimeSkewSeconds(timestamp: string | undefined, wallClockMs: number): number {
  return /^\d{1,12}$/.test(timestamp ?? '') ? Math.abs(wallClockMs / 1000 - Number(timestamp)) : Number.NaN;
}

/** The 32 bytes of a hex HMAC-SHA256 (64 hex digits, either case), or null for anything else. */
export function hexSignature(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-f]{64}$/i.test(text)) return null;
  const bytes = new Uint8Array(32);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = Number.parseInt(text.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

/**
 * The bytes of base64 text (`+/`, as in Shopify's webhook header) or base64url text (`-_`, as in a
 * JWT), padded or not, of at most `maxBytes` bytes; null for anything else.
 */
export function base64Bytes(text: string, alphabet: 'base64' | 'base64url', maxBytes: number): Uint8Array<ArrayBuffer> | null {
  const syntax = alphabet === 'base64' ? /^[A-Za-z0-9+/]*={0,2}$/ : /^[A-Za-z0-9_-]*={0,2}$/;
  if (text.length > Math.ceil(maxBytes / 3) * 4 || !syntax.test(text)) return null;
  const unpadded = text.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return null;
  try {
    const binary = atob(unpadded.replaceAll('-', '+').replaceAll('_', '/'));
    return Uint8Array.from(binary, (character) => character.charCodeAt(0));
  } catch {
    return null;
  }
}
