/**
 * The events' columns written beside the events file, so that a restart reads typed arrays instead of parsing
 * ten million JSON lines (parsing is what a start spends its time on). The events file stays the durable
 * format: the snapshot is a cache of it, written after each full rewrite of the file, and used only while it
 * provably describes that file's first bytes: same file identity and the same SHA-1 of every byte it covers
 * (taken while the file was written; checking it at start costs far less than parsing). Lines appended since (captured events) are parsed from that offset. Anything else — a missing,
 * stale, corrupt or foreign snapshot, a file edited in place — falls back to parsing the whole file.
 *
 * Layout: "AMCOL3\n", a uint32 (LE) header length, the header (JSON: the events file's identity, the log header
 * that file starts with, the dictionaries, each table's project and sizes), then each table's arrays in
 * EventTable.columnsForSnapshot order (the rows' log numbers last).
 */
import { closeSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { EventStore } from "./event-store.ts";
import { sharedFloat64, sharedUint32 } from "./columns/column-arrays.ts";
import { EventDictionaries, type DictionaryLists } from "./columns/dictionaries.ts";
import { EventTable } from "./event-table.ts";
import type { LogHeader } from "./events-file.ts";

const MAGIC = "AMCOL3\n";
/** fs reads and writes take at most 2 GiB at once. */
const IO_CHUNK = 1 << 30;
/** Read size while hashing the events file. */
const HASH_CHUNK = 8 << 20;

/** Which events file, up to which byte, a snapshot stands for. */
export interface FileIdentity {
  dev: number;
  ino: number;
  birthtimeMs: number;
  size: number;
  /** SHA-1 of the file's bytes [0, size). */
  sha1: string;
}

interface Header {
  events: FileIdentity;
  log: LogHeader;
  dictionaries: DictionaryLists;
  tables: { projectId: string; rows: number; vals: number }[];
}

/** The identity of the events file as it is now (taken right after a rewrite, before any append), with the SHA-1 its writer computed. */
export function identityOf(eventsFile: string, sha1: string): FileIdentity {
  const st: Stats = statSync(eventsFile);
  return { dev: st.dev, ino: st.ino, birthtimeMs: st.birthtimeMs, size: st.size, sha1 };
}

/** Writes the snapshot of `events` (a store snapshot that no longer changes) for the file `identity` names. */
export async function writeColumnSnapshot(file: string, events: EventStore, identity: FileIdentity, log: LogHeader): Promise<void> {
  const tables = events.tables().map(([projectId, t]) => ({ projectId, ...t.columnsForSnapshot() }));
  const header: Header = { events: identity, log, dictionaries: events.dict.toLists(), tables: tables.map(({ projectId, rows, vals }) => ({ projectId, rows, vals })) };
  const headerBytes = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.alloc(MAGIC.length + 4);
  prefix.write(MAGIC, 0, "latin1");
  prefix.writeUInt32LE(headerBytes.length, MAGIC.length);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  const handle = await open(temp, "w");
  try {
    await handle.write(prefix);
    await handle.write(headerBytes);
    for (const t of tables) {
      for (const array of t.arrays) {
        const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
        for (let at = 0; at < bytes.length; at += IO_CHUNK) await handle.write(bytes.subarray(at, Math.min(bytes.length, at + IO_CHUNK)));
      }
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
}

export const removeColumnSnapshot = (file: string): Promise<void> => rm(file, { force: true });

/** What a snapshot gives back: the events, the byte of the events file they end at, and that file's log header. */
export interface ColumnSnapshot {
  events: EventStore;
  endsAt: number;
  log: LogHeader;
}

/**
 * The snapshot's events, or null when the snapshot does not describe the file's beginning (then the whole file is
 * parsed).
 */
export async function readColumnSnapshot(file: string, eventsFile: string): Promise<ColumnSnapshot | null> {
  let digest: Promise<string> | undefined;
  const columns = readColumns(file, eventsFile, (identity) => (digest = sha1OfFileInWorker(eventsFile, identity.size)));
  if (!columns || !digest) return null;
  try {
    return (await digest) === columns.identity.sha1 ? columns.read : null;
  } catch {
    return null;
  }
}

/**
 * The snapshot's columns, when its header names this very file (identity and size); `verify` is called before
 * the columns are read, so that checking the bytes overlaps reading them.
 */
function readColumns(file: string, eventsFile: string, verify: (identity: FileIdentity) => void): { identity: FileIdentity; read: ColumnSnapshot } | null {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  try {
    const prefix = Buffer.alloc(MAGIC.length + 4);
    if (readSync(fd, prefix, 0, prefix.length, 0) !== prefix.length || prefix.toString("latin1", 0, MAGIC.length) !== MAGIC) return null;
    const headerLength = prefix.readUInt32LE(MAGIC.length);
    const headerBytes = Buffer.alloc(headerLength);
    if (readSync(fd, headerBytes, 0, headerLength, prefix.length) !== headerLength) return null;
    const header = JSON.parse(headerBytes.toString("utf8")) as Header;
    if (!sameFile(header.events, eventsFile) || typeof header.log?.epoch !== "string" || !Number.isSafeInteger(header.log.base)) return null;
    verify(header.events);
    const dict = EventDictionaries.fromLists(header.dictionaries);
    let position = prefix.length + headerLength;
    const read = <A extends Float64Array | Uint32Array>(array: A): A => {
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      for (let at = 0; at < bytes.length; ) {
        const got = readSync(fd, bytes, at, Math.min(IO_CHUNK, bytes.length - at), position);
        if (got === 0) throw new Error("column snapshot: truncated");
        at += got;
        position += got;
      }
      return array;
    };
    const tables = header.tables.map(({ projectId, rows, vals }) => {
      const arrays = [read(sharedFloat64(rows)), ...[rows, rows, rows * 4, rows, rows, rows, vals, rows].map((n) => read(sharedUint32(n)))];
      return EventTable.fromSnapshot(projectId, dict, rows, vals, arrays);
    });
    return { identity: header.events, read: { events: EventStore.fromTables(dict, tables), endsAt: header.events.size, log: header.log } };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The file the identity names, at least as long as it was (its bytes are checked apart). */
function sameFile(identity: FileIdentity, eventsFile: string): boolean {
  let st: Stats;
  try {
    st = statSync(eventsFile);
  } catch {
    return false;
  }
  return st.dev === identity.dev && st.ino === identity.ino && st.birthtimeMs === identity.birthtimeMs && st.size >= identity.size && typeof identity.sha1 === "string";
}

// The hash of a file's first bytes on another thread: a large file's SHA-1 takes seconds, which then overlaps reading the columns instead of adding to the start. Inline: the same from src/ and dist/.
const HASH_WORKER = `
const { workerData, parentPort } = require("node:worker_threads");
const { openSync, readSync, closeSync } = require("node:fs");
const { createHash } = require("node:crypto");
const { file, size, chunkSize } = workerData;
const fd = openSync(file, "r");
const hash = createHash("sha1");
const chunk = Buffer.allocUnsafe(Math.min(chunkSize, Math.max(1, size)));
for (let at = 0; at < size; ) {
  const got = readSync(fd, chunk, 0, Math.min(chunk.length, size - at), at);
  if (got === 0) break;
  hash.update(chunk.subarray(0, got));
  at += got;
}
closeSync(fd);
parentPort.postMessage(hash.digest("hex"));
`;

function sha1OfFileInWorker(file: string, size: number): Promise<string> {
  const worker = new Worker(HASH_WORKER, { eval: true, workerData: { file, size, chunkSize: HASH_CHUNK } });
  const digest = new Promise<string>((resolve, reject) => {
    worker.once("message", (hex: string) => resolve(hex));
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`hash worker exited with ${code}`)));
  });
  digest.catch(() => undefined);
  return digest;
}
