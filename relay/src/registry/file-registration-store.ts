import { randomUUID } from 'node:crypto';
import { open as openFile, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { isPlainObject } from '../../../server-kit/config-checks.js';
import { MemoryRegistrationStore } from './memory-registration-store.js';
import { type RegistrationRecord, readRegistrationRecord } from './registration-record.js';
import type { RegistrationPage } from './registration-store.js';

/** How long a change waits for another process's change to the file before it fails. */
const LOCK_WAIT_MS = 5_000;
/** A lock older than this was left by a process that died while changing the file. */
const STALE_LOCK_MS = 15_000;
const LOCK_RETRY_MS = 10;

/**
 * Registrations of one Node instance without Redis, in a JSON file rewritten whole on every change:
 * to a temporary file beside it, flushed, then renamed over it, so a crash leaves the old file or
 * the new one, never half of one. Chosen over an embedded database: a relay holds at most
 * `maxWebsites` small records (about 300 bytes each), changed a few times an hour, and a plain file
 * is what an operator can back up, read and restore. The per-website budgets stay in memory.
 *
 * `rotate-keys` changes the file from another process while the relay serves, so each change is
 * made under a lock file beside it (`{path}.lock`, created exclusively) on the file as it is on disk
 * at that moment, and the relay reads the file again whenever it changed on disk.
 */
export class FileRegistrationStore extends MemoryRegistrationStore {
  readonly #path: string;
  readonly #log: (line: string) => void;
  #queue: Promise<unknown> = Promise.resolve();
  /** The file's identity, size and time when it was last read: another one means another writer changed it. */
  #readStamp = '';

  private constructor(path: string, log: (line: string) => void) {
    super();
    this.#path = path;
    this.#log = log;
  }

  /**
   * Reads the file (a missing one is an empty list). A file that is not a registrations file is an
   * error naming the path: starting empty would overwrite every owner's registration on the next write.
   */
  static async open(path: string, log: (line: string) => void): Promise<FileRegistrationStore> {
    const store = new FileRegistrationStore(path, log);
    await store.#readIfChanged();
    return store;
  }

  /** The file's stamp: it moves with every change, by this process or another. */
  override version(): Promise<string> {
    return this.#serial(async () => {
      await this.#readIfChanged();
      return this.#readStamp;
    });
  }

  override all(): Promise<ReadonlyMap<string, unknown>> {
    return this.#serial(async () => {
      await this.#readIfChanged();
      return super.all();
    });
  }

  override page(cursor: string): Promise<RegistrationPage> {
    return this.#serial(async () => {
      await this.#readIfChanged();
      return super.page(cursor);
    });
  }

  override get(websiteId: string): Promise<unknown> {
    return this.#serial(async () => {
      await this.#readIfChanged();
      return super.get(websiteId);
    });
  }

  override put(record: RegistrationRecord, expected: RegistrationRecord | null): Promise<boolean> {
    return this.#change(
      () => this.holds(record.websiteId, expected),
      (records) => records.set(record.websiteId, record),
    );
  }

  override remove(expected: RegistrationRecord): Promise<boolean> {
    return this.#change(
      () => this.records.has(expected.websiteId) && this.holds(expected.websiteId, expected),
      (records) => records.delete(expected.websiteId),
    ).then((removed) => {
      if (removed) this.forgetBudget(expected.websiteId);
      return removed;
    });
  }

  /**
   * A change under the lock, on the file as it is now: the compare first, then the file written
   * with the change, and memory changed only once it is on disk, so what is served never runs
   * ahead of what a restart would find.
   */
  #change(holds: () => boolean, onCopy: (records: Map<string, RegistrationRecord>) => void): Promise<boolean> {
    return this.#serial(() =>
      this.#locked(async () => {
        await this.#readIfChanged();
        if (!holds()) return false;
        const records = new Map(this.records);
        onCopy(records);
        await this.#writeAtomically(records);
        this.records.clear();
        for (const [websiteId, record] of records) this.records.set(websiteId, record);
        this.#readStamp = await this.#stamp();
        return true;
      }),
    );
  }

  /** One read or change at a time in this process: a slow read never lands over a later change. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work);
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Reads the file again when its stamp moved (stamp first: a change after it is seen next time). */
  async #readIfChanged(): Promise<void> {
    const stamp = await this.#stamp();
    if (stamp === this.#readStamp) return;
    let text: string;
    try {
      text = stamp === 'none' ? '{"registrations":{}}' : await readFile(this.#path, 'utf8');
    } catch (error) {
      throw new Error(`registrationsFile ${this.#path} cannot be read: ${(error as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(
        `registrationsFile ${this.#path} is not JSON: restore it from a backup, or move it away to start with no registrations`,
      );
    }
    if (!isPlainObject(json) || !isPlainObject(json.registrations)) {
      throw new Error(`registrationsFile ${this.#path} is not a registrations file ({ "registrations": { … } })`);
    }
    this.records.clear();
    let skipped = 0;
    for (const [websiteId, raw] of Object.entries(json.registrations)) {
      const record = readRegistrationRecord(raw, websiteId);
      if (record) this.records.set(websiteId, record);
      else skipped += 1;
    }
    if (skipped > 0) this.#log(`registrationsFile ${this.#path}: ${skipped} record(s) are not registrations and were left out`);
    this.#readStamp = stamp;
  }

  async #stamp(): Promise<string> {
    try {
      const { ino, size, mtimeNs } = await stat(this.#path, { bigint: true });
      return `${ino}-${size}-${mtimeNs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
      throw new Error(`registrationsFile ${this.#path} cannot be read: ${(error as Error).message}`);
    }
  }

  /** Runs `work` holding `{path}.lock`: waits for another process's, bounded; takes over one left by a process that died. */
  async #locked<T>(work: () => Promise<T>): Promise<T> {
    const lockPath = `${this.#path}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        await (await openFile(lockPath, 'wx', 0o600)).close();
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new Error(`registrationsFile ${this.#path} cannot be locked: ${(error as Error).message}`);
        }
      }
      const lockedAtMs = await stat(lockPath).then(
        ({ mtimeMs }) => mtimeMs,
        () => Date.now(),
      );
      if (Date.now() - lockedAtMs > STALE_LOCK_MS) await rm(lockPath, { force: true });
      else if (Date.now() > deadline) {
        throw new Error(`registrationsFile ${this.#path} stayed locked by another process (${lockPath}) for ${LOCK_WAIT_MS} ms`);
      } else await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
    try {
      return await work();
    } finally {
      await rm(lockPath, { force: true });
    }
  }

  async #writeAtomically(records: ReadonlyMap<string, RegistrationRecord>): Promise<void> {
    const text = `${JSON.stringify({ registrations: Object.fromEntries(records) }, null, 1)}\n`;
    const temporary = `${this.#path}.${randomUUID()}.tmp`;
    try {
      // `flush` syncs the data before the rename makes it the file.
      await writeFile(temporary, text, { encoding: 'utf8', mode: 0o600, flush: true });
      await rename(temporary, this.#path);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => {});
      throw new Error(`registrationsFile ${this.#path} could not be written: ${(error as Error).message}`);
    }
  }
}
