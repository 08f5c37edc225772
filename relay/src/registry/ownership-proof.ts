import type { SourceSettings } from '../sources/source.js';
import { namedSourceKind, sourceWebsiteId } from '../sources/source-website-id.js';
import { isSameSite, joinedSource, publicPart, secretPart, secretTexts, withBearerKey } from './registered-source.js';
import type { RegistrationRecord } from './registration-record.js';
import type { TokenCipher } from './token-cipher.js';

// What proves that whoever asks owns a website: there are no accounts. The website ID
// names its proof: an ID of a source's form (`plausible:shop.example`) is proven by that source's
// key, any other by a token the contract's service (the relay's `upstream`) accepts. So any valid
// proof of the named kind registers or replaces, and a key goes only to the service its ID names.

/** How a removal is proven: by the stored key (no request), by asking the service the ID names (a token: the contract's), or not at all. */
export type RemovalProof =
  | { readonly by: 'stored' }
  | { readonly by: 'service'; readonly source?: SourceSettings }
  | { readonly by: 'nothing' };

/**
 * Whether the record holds the proof its ID names: a token under an ID of the contract's form, or
 * a source under the ID it makes. Records written before IDs were derived may not (a source under
 * `small-shop`): the proof its ID names replaces them, and their own key still removes them.
 */
export function holdsNamedProof(record: RegistrationRecord): boolean {
  if (record.source === null) return namedSourceKind(record.websiteId) === null;
  return sourceWebsiteId(record.source) === record.websiteId;
}

/**
 * What proves a removal of `record` with a Bearer `token` or a `source` sent whole. The stored
 * key is compared here. Another key is asked of the service the website ID names, and of no other:
 * a token of an ID of the contract's form goes to the contract's service even when the record
 * names a source (a registrant's server never sees the real owner's token); a Bearer key for a
 * source's ID goes to that source only when the stored one is the source the ID names; a source
 * sent whole goes to itself when it is the one the ID names, or the record's own site (its
 * registrant's own, operator-approved service).
 */
export async function removalProof(
  cipher: TokenCipher,
  record: RegistrationRecord,
  token: string,
  source: SourceSettings | undefined,
): Promise<RemovalProof> {
  const stored = await storedSource(cipher, record);
  if (await holdsStoredToken(cipher, record, token, stored, source)) return { by: 'stored' };
  const { websiteId } = record;
  if (source !== undefined) {
    const named = sourceWebsiteId(source) === websiteId;
    const ownSite = record.source !== null && isSameSite(record.source, publicPart(source));
    return named || ownSite ? { by: 'service', source } : { by: 'nothing' };
  }
  if (namedSourceKind(websiteId) === null) return { by: 'service' };
  const rotated = stored !== null && holdsNamedProof(record) ? withBearerKey(stored, token) : null;
  return rotated === null ? { by: 'nothing' } : { by: 'service', source: rotated };
}

/** A source registration's stored source, decrypted; null for a token registration or one that does not decrypt. */
async function storedSource(cipher: TokenCipher, record: RegistrationRecord): Promise<SourceSettings | null> {
  if (record.source === null) return null;
  try {
    return joinedSource(record.source, await cipher.open(record));
  } catch {
    return null;
  }
}

/** The token (or a source's API key as a Bearer, or a source sent whole) is the stored one. */
async function holdsStoredToken(
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

/** Compares two texts in time that depends only on their lengths. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}
