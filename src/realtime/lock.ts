import type { Environment } from './environment.js';

/** How long a tab without Web Locks may hold its storage claim (a request times out before). */
const CLAIM_MS = 15_000;
const CLAIM_POLL_MS = 500;

/**
 * Runs `task` while no other tab of this browser runs a task under the same name, so only one
 * of them asks the service and the others read its answer from storage.
 *
 * Uses the Web Locks API; where it is missing, a claim written to localStorage (weaker: two
 * tabs can race within a few milliseconds, which costs one extra request, never a wrong count).
 */
export async function exclusively(
  env: Environment,
  name: string,
  signal: AbortSignal,
  task: () => Promise<void>,
): Promise<void> {
  const locks = env.locks();
  if (locks) {
    let ran = false;
    try {
      await locks.request(name, { signal }, () => ((ran = true), task()));
      return;
    } catch (error) {
      // Refused before it ran (sandboxed or opaque-origin frames throw SecurityError): use the claim.
      if (ran || signal.aborted) throw error;
    }
  }
  const storage = env.storage();
  if (!storage) return task();
  const claimKey = `${name}#claim`;
  while (!signal.aborted && readClaim(storage, claimKey) > env.now()) {
    await new Promise<void>((resolve) => env.setTimeout(resolve, CLAIM_POLL_MS));
  }
  if (signal.aborted) return;
  writeClaim(storage, claimKey, String(env.now() + CLAIM_MS));
  try {
    await task();
  } finally {
    writeClaim(storage, claimKey, null);
  }
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
