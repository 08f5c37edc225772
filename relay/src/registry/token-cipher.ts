import { ENCRYPTION_KEY_BYTES } from '../config-self-serve.js';
import { additionalDataOf, RECORD_FORMAT, type RegistrationRecord, type SealedToken, type UnsealedRecord } from './registration-record.js';

/** The token does not decrypt: its key was removed, or the record was changed in the store or copied to another website. */
export class UnreadableToken extends Error {
  override name = 'UnreadableToken';
}

const IV_BYTES = 12;

/**
 * Encrypts owners' tokens at rest with the config's `encryptionKeys`: the first key encrypts, every
 * key decrypts, so a new key put first takes over while records under older ones still read (and
 * are re-encrypted on their next write). The rest of the record is the additional authenticated
 * data (`additionalDataOf`), so a record changed in the store, or copied to another website, does
 * not decrypt. Web Crypto only: Node, Workers, Deno and Bun.
 */
export class TokenCipher {
  readonly #keys: Promise<ReadonlyMap<string, CryptoKey>>;
  readonly #currentId: string;

  /** From the config's checked `id:base64` list (at least one); the first one encrypts. Keys are imported on first use. */
  constructor(encryptionKeys: readonly string[]) {
    const [current] = encryptionKeys;
    if (current === undefined) throw new Error('TokenCipher needs at least one encryption key');
    this.#currentId = current.split(':')[0]!;
    this.#keys = importKeys(encryptionKeys);
    // Keys that do not import fail every seal and open, each saying so; unhandled here they would end the process.
    this.#keys.catch(() => {});
  }

  /** The key new records are encrypted with. */
  get currentKeyId(): string {
    return this.#currentId;
  }

  /** The record with `secret` (a token, or a source's secrets) sealed under the current key, bound to every other field. */
  async seal(fields: UnsealedRecord, secret: string): Promise<RegistrationRecord> {
    const unsealed = { ...fields, format: RECORD_FORMAT };
    return { ...unsealed, token: await this.sealText(additionalDataOf(unsealed), secret) };
  }

  /** The record's token (or a source's secrets), or `UnreadableToken` when the record is not the one sealed. */
  open(record: RegistrationRecord): Promise<string> {
    return this.openText(additionalDataOf(record), record.token);
  }

  /** `text` sealed under the current key with `additionalData`; `seal` is the one for records. */
  async sealText(additionalData: string, text: string): Promise<SealedToken> {
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const key = (await this.#keys).get(this.#currentId)!;
    const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encode(additionalData) }, key, encode(text));
    return { keyId: this.#currentId, iv: toBase64(iv), sealed: toBase64(new Uint8Array(sealed)) };
  }

  /** The text, or `UnreadableToken` saying why not (never with any of the record's bytes). */
  async openText(additionalData: string, token: SealedToken): Promise<string> {
    const key = (await this.#keys).get(token.keyId);
    if (!key) throw new UnreadableToken(`its key "${token.keyId}" is not in encryptionKeys any more`);
    try {
      const plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: fromBase64(token.iv), additionalData: encode(additionalData) },
        key,
        fromBase64(token.sealed),
      );
      return new TextDecoder('utf-8', { fatal: true }).decode(plain);
    } catch {
      throw new UnreadableToken(
        `it does not decrypt under key "${token.keyId}" for this website (changed in the store, or copied from another website)`,
      );
    }
  }
}

async function importKeys(encryptionKeys: readonly string[]): Promise<ReadonlyMap<string, CryptoKey>> {
  const keys = new Map<string, CryptoKey>();
  for (const entry of encryptionKeys) {
    const [id, secret] = entry.split(':') as [string, string];
    const bytes = fromBase64(secret);
    if (bytes.length !== ENCRYPTION_KEY_BYTES) throw new Error(`encryption key "${id}" is not ${ENCRYPTION_KEY_BYTES} bytes`);
    keys.set(id, await crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, ['encrypt', 'decrypt']));
  }
  return keys;
}

function encode(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>;
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
}
