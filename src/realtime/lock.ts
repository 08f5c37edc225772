import { type Environment, withStorage } from './environment.js';

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
  // Without storage (or with a full one) there is no claim: the task runs, the count stays right.
  const claimKey = `${name}#claim`;
  if (Number(withStorage(env, (storage) => storage.getItem(claimKey))) > env.now()) return false;
  withStorage(env, (storage) => storage.setItem(claimKey, String(env.now() + CLAIM_MS)));
  try {
    await task();
  } finally {
    withStorage(env, (storage) => storage.removeItem(claimKey));
  }
  return true;
}
