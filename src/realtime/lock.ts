import type { Environment } from './environment.js';

/** How long a tab without Web Locks may hold its storage claim (a request times out before). */
const CLAIM_MS = 15_000;

/**
 * Runs `task` unless another tab of this browser is running a task under the same name right
 * now; resolves to false when it did not run. That other tab is asking the service, and its
 * answer reaches this one as a storage event.
 *
 * Never waits for the other tab: a waiting tab would read localStorage as soon as it got the
 * lock, and Chromium hands localStorage writes between tab processes on asynchronously, so it
 * could read the old record and ask again.
 *
 * Uses the Web Locks API; where it is missing or refused, a claim written to localStorage
 * (weaker: two tabs can race within a few milliseconds, which costs one extra request, never a
 * wrong count).
 */
export async function exclusively(env: Environment, name: string, task: () => Promise<void>): Promise<boolean> {
  const locks = env.locks();
  if (locks) {
    let ran = false;
    try {
      return await locks.request(name, { ifAvailable: true }, async (lock) => {
        if (!lock) return false;
        ran = true;
        await task();
        return true;
      });
    } catch (error) {
      // Refused before it ran (sandboxed or opaque-origin frames throw SecurityError): use the claim.
      if (ran) throw error;
    }
  }
  const storage = env.storage();
  if (!storage) {
    await task();
    return true;
  }
  const claimKey = `${name}#claim`;
  if (readClaim(storage, claimKey) > env.now()) return false;
  writeClaim(storage, claimKey, String(env.now() + CLAIM_MS));
  try {
    await task();
  } finally {
    writeClaim(storage, claimKey, null);
  }
  return true;
}

function readClaim(storage: Storage, key: string): number {
  try {
    return Number(storage.getItem(key)) || 0;
  } catch {
    return 0;
  }
}

function writeClaim(storage: Storage, key: string, value: string | null): void {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // A full or blocked storage only weakens the cross-tab guarantee; the count stays right.
  }
}
