import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isPlainObject } from '../../../server-kit/config-checks.js';
import { MemoryRegistrationStore } from './memory-registration-store.js';
import { type RegistrationRecord, readRegistrationRecord } from './registration-record.js';

/**
 * Registrations of one Node instance without Redis, in a JSON file rewritten whole on every change:
 * to a temporary file beside it, flushed, then renamed over it, so a crash leaves the old file or
 * the new one, never half of one. Chosen over an embedded database: a relay holds at most
 * `maxWebsites` small records (about 300 bytes each), changed a few times an hour, and a plain file
 * is what an operator can back up, read and restore. The per-website budgets stay in memory.
 */
export class FileRegistrationStore extends MemoryRegistrationStore {
  readonly #path: string;
  #writing: Promise<void> = Promise.resolve();

  private constructor(path: string) {
    super();
    this.#path = path;
  }

  /**
   * Reads the file (a missing one is an empty list). A file that is not a registrations file is an
   * error naming the path: starting empty would overwrite every owner's registration on the next write.
   */
  static async open(path: string, log: (line: string) => void): Promise<FileRegistrationStore> {
    const store = new FileRegistrationStore(path);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return store;
      throw new Error(`registrationsFile ${path} cannot be read: ${(error as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`registrationsFile ${path} is not JSON: restore it from a backup, or move it away to start with no registrations`);
    }
    if (!isPlainObject(json) || !isPlainObject(json.registrations)) {
      throw new Error(`registrationsFile ${path} is not a registrations file ({ "registrations": { … } })`);
    }
    let skipped = 0;
    for (const [websiteId, raw] of Object.entries(json.registrations)) {
      const record = readRegistrationRecord(raw, websiteId);
      if (record) store.records.set(websiteId, record);
      else skipped += 1;
    }
    if (skipped > 0) log(`registrationsFile ${path}: ${skipped} record(s) are not registrations and were left out`);
    return store;
  }

  override put(record: RegistrationRecord): Promise<void> {
    return this.#change(
      (records) => records.set(record.websiteId, record),
      () => super.put(record),
    );
  }

  override async remove(websiteId: string): Promise<boolean> {
    let had = false;
    await this.#change(
      (records) => records.delete(websiteId),
      async () => {
        had = await super.remove(websiteId);
      },
    );
    return had;
  }

  /**
   * One change at a time: the file is written with the change first, and memory changed only once
   * it is on disk, so what is served never runs ahead of what a restart would find.
   */
  #change(onCopy: (records: Map<string, RegistrationRecord>) => void, inMemory: () => Promise<unknown>): Promise<void> {
    const next = this.#writing.then(async () => {
      const records = new Map(this.records);
      onCopy(records);
      await this.#writeAtomically(records);
      await inMemory();
    });
    this.#writing = next.catch(() => {});
    return next;
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
