import type { SourceSettings } from '../sources/source.js';
import { isSameSite, joinedSource, publicPart, secretPart, secretTexts, withBearerKey } from './registered-source.js';
import type { RegistrationRecord } from './registration-record.js';
import type { TokenCipher } from './token-cipher.js';

// What proves that whoever asks to replace or remove a registration owns it: there are no
// accounts, only the stored key or one the service accepts now for the same site.

/**
 * Whether a registration may replace the stored one: the same kind of proof for the same site, so
 * the service's answer to the new key proves ownership of what is stored. A token proves its
 * website at the contract's service; a source, its own site at its own service.
 */
export function isSameOwnership(existing: RegistrationRecord, source: SourceSettings | undefined): boolean {
  if (existing.source === null || source === undefined) return existing.source === null && source === undefined;
  return isSameSite(existing.source, publicPart(source));
}

/** A source registration's stored source, decrypted; null for a token registration or one that does not decrypt. */
export async function storedSource(cipher: TokenCipher, record: RegistrationRecord): Promise<SourceSettings | null> {
  if (record.source === null) return null;
  try {
    return joinedSource(record.source, await cipher.open(record));
  } catch {
    return null;
  }
}

/** The token (or a source's API key as a Bearer, or a source sent whole) is the stored one. */
export async function holdsStoredToken(
  cipher: TokenCipher,
  record: RegistrationRecord,
  token: string,
  stored: SourceSettings | null,
  source: SourceSettings | undefined,
): Promise<boolean> {
  if (record.source !== null) {
    if (stored === null) return false;
    if (source !== undefined) return isSameSite(record.source, publicPart(source)) && sameText(secretPart(stored), secretPart(source));
    return secretTexts(stored).some((secret) => sameText(secret, token));
  }
  if (source !== undefined) return false;
  try {
    return sameText(await cipher.open(record), token);
  } catch {
    return false;
  }
}

/** What to ask the service to prove a removal with a key that is not the stored one; null when nothing can. */
export function proofToCheck(
  existing: RegistrationRecord,
  token: string,
  stored: SourceSettings | null,
  source: SourceSettings | undefined,
): { source?: SourceSettings } | null {
  if (existing.source === null) return source === undefined ? {} : null;
  if (source !== undefined) return isSameSite(existing.source, publicPart(source)) ? { source } : null;
  const rotated = stored === null ? null : withBearerKey(stored, token);
  return rotated === null ? null : { source: rotated };
}

/** Compares two texts in time that depends only on their lengths. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}
