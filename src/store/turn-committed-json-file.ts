import type { Adapter } from "lowdb";
import { JSONFile, JSONFileSync } from "lowdb/node";

/**
 * A lowdb JSON file with group commit: every write asked for during one turn of the event loop is served
 * by a single write at the end of the turn (lowdb's JSONFileSync: temporary file, then rename), and each
 * caller is answered once it is done. For the small, often-written main file: through the thread pool a
 * write costs four round trips and concurrent writers queue behind each other; one synchronous write per turn
 * costs the same whatever the number of writers.
 */
export class TurnCommittedJsonFile<T> implements Adapter<T> {
  readonly #reader: JSONFile<T>;
  readonly #writer: JSONFileSync<T>;
  #pending: { data: T; written: Promise<void> } | null = null;

  /** `stamp`: what is written for the data, decided as it is written; `committed`: runs right after each write. */
  constructor(
    file: string,
    private readonly hooks: { stamp?: (data: T) => T; committed?: () => void } = {},
  ) {
    this.#reader = new JSONFile<T>(file);
    this.#writer = new JSONFileSync<T>(file);
  }

  read(): Promise<T | null> {
    return this.#reader.read();
  }

  write(data: T): Promise<void> {
    if (this.#pending) {
      this.#pending.data = data;
      return this.#pending.written;
    }
    const pending: { data: T; written: Promise<void> } = { data, written: Promise.resolve() };
    const commit = (resolve: () => void, reject: (e: unknown) => void) => {
      this.#pending = null;
      try {
        this.#writer.write(this.hooks.stamp ? this.hooks.stamp(pending.data) : pending.data);
        this.hooks.committed?.();
        resolve();
      } catch (e) {
        reject(e);
      }
    };
    // After the next poll of the sockets, not the current one's end: requests that arrived meanwhile (a loaded
    // server's next batches) are handled first and share this write, where they each made their own.
    pending.written = new Promise<void>((resolve, reject) => setImmediate(() => setImmediate(() => commit(resolve, reject))));
    this.#pending = pending;
    return pending.written;
  }
}
