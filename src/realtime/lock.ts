import type { Environment } from './environment.js';

/**
 * Runs `task` unless another tab of this browser is running a task under the same name right
 * now; resolves to false when it did not run. That other tab is asking the service, and its
 * answer reaches this one as a storage event.
 *
 * Never waits for the other tab: a waiting tab would read localStorage as soon as it got the
 * lock, and Chromium hands localStorage writes between tab processes on asynchronously, so it
 * could read the old record and ask again.
 *
 * Uses the Web Locks API, which every browser Lit 3 supports has. Where it is missing (Safari
 * before 15.4, Firefox before 96) or refused (opaque-origin frames throw SecurityError, and refuse
 * localStorage too), the task just runs: tabs still share the stored answer, but each may ask
 * once an interval while another tab's request is in flight. More requests, never a wrong count.
 * (A claim in localStorage covered the old browsers for 64 B gzip of every shopper's download.)
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
      // Refused before it ran: run it without.
      if (ran) throw error;
    }
  }
  await task();
  return true;
}
