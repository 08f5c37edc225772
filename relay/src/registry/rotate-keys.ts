import type { SelfServeConfig } from '../config-self-serve.js';
import { readRegistrationRecord } from './registration-record.js';
import type { RegistrationStore } from './registration-store.js';
import { TokenCipher, UnreadableToken } from './token-cipher.js';

export interface RotationReport {
  /** Records moved to the first key. */
  readonly reencrypted: number;
  /** Records already under it. */
  readonly current: number;
  /** Websites whose record no key of the config decrypts: left as they are, for their owners to register again. */
  readonly unreadable: readonly string[];
}

/**
 * Re-encrypts every registration under the config's first key, so the older keys can be removed
 * from `encryptionKeys` afterwards. Each record is decrypted and written back on its own; running
 * it twice is harmless. `live-visitors-relay rotate-keys --config …` runs it.
 */
export async function rotateKeys(config: Pick<SelfServeConfig, 'encryptionKeys'>, store: RegistrationStore): Promise<RotationReport> {
  const cipher = new TokenCipher(config.encryptionKeys);
  let reencrypted = 0;
  let current = 0;
  const unreadable: string[] = [];
  for (const [websiteId, raw] of await store.all()) {
    const record = readRegistrationRecord(raw, websiteId);
    if (!record) {
      unreadable.push(websiteId);
      continue;
    }
    if (record.token.keyId === cipher.currentKeyId) {
      current += 1;
      continue;
    }
    let token: string;
    try {
      token = await cipher.open(websiteId, record.token);
    } catch (error) {
      if (!(error instanceof UnreadableToken)) throw error;
      unreadable.push(websiteId);
      continue;
    }
    await store.put({ ...record, token: await cipher.seal(websiteId, token) });
    reencrypted += 1;
  }
  return { reencrypted, current, unreadable };
}
