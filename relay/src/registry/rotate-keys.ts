import type { SelfServeConfig } from '../config-self-serve.js';
import { RECORD_FORMAT, readRegistrationRecord, unsealedOf } from './registration-record.js';
import type { RegistrationStore } from './registration-store.js';
import { TokenCipher, UnreadableToken } from './token-cipher.js';

export interface RotationReport {
  /** Records sealed anew: under the first key, in the current format. */
  readonly reencrypted: number;
  /** Records already so. */
  readonly current: number;
  /** Websites whose record no key of the config decrypts: left as they are, for their owners to register again. */
  readonly unreadable: readonly string[];
  /** Websites whose record was replaced or removed while it was being sealed anew: left as that change made them. */
  readonly changed: readonly string[];
}

/**
 * Re-encrypts every registration under the config's first key, so the older keys can be removed
 * from `encryptionKeys` afterwards, and seals records of the older format whole (see
 * `RegistrationRecord.format`). The store is read a page at a time and each record written back
 * only if it is still the one read (compare-and-set), so a registration an owner or a webhook
 * replaces or removes meanwhile stays replaced or removed. Running it twice is harmless.
 * `live-visitors-relay rotate-keys --config …` runs it.
 */
export async function rotateKeys(config: Pick<SelfServeConfig, 'encryptionKeys'>, store: RegistrationStore): Promise<RotationReport> {
  const cipher = new TokenCipher(config.encryptionKeys);
  let reencrypted = 0;
  let current = 0;
  const unreadable: string[] = [];
  const changed: string[] = [];
  // A page may repeat a record of an earlier one (Redis's HSCAN may): each is looked at once.
  const seen = new Set<string>();
  let cursor = '';
  do {
    const page = await store.page(cursor);
    for (const [websiteId, raw] of page.records) {
      if (seen.has(websiteId)) continue;
      seen.add(websiteId);
      const record = readRegistrationRecord(raw, websiteId);
      if (!record) {
        unreadable.push(websiteId);
        continue;
      }
      if (record.token.keyId === cipher.currentKeyId && record.format === RECORD_FORMAT) {
        current += 1;
        continue;
      }
      let secret: string;
      try {
        secret = await cipher.open(record);
      } catch (error) {
        if (!(error instanceof UnreadableToken)) throw error;
        unreadable.push(websiteId);
        continue;
      }
      if (await store.put(await cipher.seal(unsealedOf(record), secret), record)) reencrypted += 1;
      else changed.push(websiteId);
    }
    cursor = page.next;
  } while (cursor !== '');
  return { reencrypted, current, unreadable, changed };
}
