import { createHash } from "node:crypto";
import { appendFileSync, createReadStream } from "node:fs";
import { mkdir, open, rename } from "node:fs/promises";
import path from "node:path";
import type { Adapter } from "lowdb";

/**
 * Records joined per write: ~100 KB of text, under V8's large-object size, so each chunk dies young and the
 * scavenger frees it at once (larger chunks waited for a full collection: bench/NOTES.md).
 */
const LINES_PER_WRITE = 200;

/** Names the file and the line of a store file that cannot be read, so start-up can refuse it clearly. */
export class StoreFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`store file ${file} is unreadable: ${reason}`);
  }
}

/**
 * A lowdb adapter for large record lists: one JSON record per line.
 * Reading and writing stream line by line (a 1M-event list never becomes one string), a write goes to a
 * temporary file renamed over the old one (a crash never leaves a half-written file), and `append` adds
 * records without rewriting the rest. All operations on one file run in order.
 */
export class NdjsonFile<T> implements Adapter<T[]> {
  readonly #file: string;
  readonly #temp: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(file: string) {
    this.#file = file;
    this.#temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  }

  read(): Promise<T[] | null> {
    const records: T[] = [];
    return this.#serial(async () => ((await this.#readEach((r) => records.push(r), 0)) ? records : null));
  }

  /**
   * Streams the records to `each` (ten million never sit in one array), from byte `start` (a line's first byte),
   * each with its line's text; false when the file does not exist.
   */
  readEach(each: (record: T, line: string) => void, start = 0): Promise<boolean> {
    return this.#serial(() => this.#readEach(each, start));
  }

  /**
   * Replaces the file with these records. An array is copied first (records pushed later are appended by their
   * own queued append, not written twice); any other iterable must already be a snapshot that will not change.
   */
  write(records: Iterable<T>): Promise<void>;
  /**
   * `thenInside` runs right after the new file is in place, before any later append reaches it, with the SHA-1
   * of the bytes written (so that a cache of the file can prove it describes them without reading them back).
   */
  write<R>(records: Iterable<T>, thenInside: (sha1: string) => R, firstLine?: string): Promise<R>;
  write<R>(records: Iterable<T>, thenInside?: (sha1: string) => R, firstLine?: string): Promise<R | void> {
    const snapshot = Array.isArray(records) ? (records.slice() as T[]) : records;
    return this.#serial(async () => {
      const sha1 = await this.#write(snapshot, firstLine);
      return thenInside?.(sha1);
    });
  }

  append(records: readonly T[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    return this.appendText(records.map((r) => JSON.stringify(r) + "\n").join(""));
  }

  /** Appends lines already made (each ending in a newline), in the file's order of operations. */
  appendText(lines: string): Promise<void> {
    // Synchronous: a few hundred bytes go out in one system call, where the thread pool would take four
    // round trips (mkdir, open, write, close) per request and queue concurrent writers behind each other.
    return this.#serial(async () => appendFileSync(this.#file, lines));
  }

  #serial<R>(task: () => Promise<R>): Promise<R> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Lines split by hand from 1 MiB chunks: readline's per-line machinery cost too much of a large read. */
  async #readEach(each: (record: T, line: string) => void, start: number): Promise<boolean> {
    const stream = createReadStream(this.#file, { encoding: "utf8", highWaterMark: 1 << 20, start });
    let lineNo = 0;
    const parseLine = (raw: string) => {
      lineNo++;
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line === "") return;
      let record: T;
      try {
        record = JSON.parse(line) as T;
      } catch (e) {
        throw new StoreFileError(this.#file, `line ${lineNo} is not valid JSON (${(e as Error).message})`);
      }
      each(record, line);
    };
    try {
      let rest = "";
      for await (const chunk of stream as AsyncIterable<string>) {
        const text = rest + chunk;
        let start = 0;
        for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
          parseLine(text.slice(start, end));
          start = end + 1;
        }
        rest = text.slice(start);
      }
      parseLine(rest);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw e;
    }
    return true;
  }

  /** Writes the records (after `firstLine`, when given) to a temporary file renamed over the file; resolves with the SHA-1 of the bytes. */
  async #write(records: Iterable<T>, firstLine?: string): Promise<string> {
    await mkdir(path.dirname(this.#file), { recursive: true });
    const handle = await open(this.#temp, "w");
    const hash = createHash("sha1");
    const put = async (text: string) => {
      hash.update(text, "utf8");
      await handle.write(text);
    };
    try {
      if (firstLine !== undefined) await put(firstLine + "\n");
      const chunk: string[] = [];
      for (const record of records) {
        chunk.push(JSON.stringify(record));
        if (chunk.length === LINES_PER_WRITE) {
          await put(chunk.join("\n") + "\n");
          chunk.length = 0;
        }
      }
      if (chunk.length) await put(chunk.join("\n") + "\n");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(this.#temp, this.#file);
    return hash.digest("hex");
  }
}
