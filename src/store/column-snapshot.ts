/**
 * The events' columns written beside the events file, so that a restart reads typed arrays instead of parsing
 * ten million JSON lines (parsing alone is ~2 s per million events here). The events file stays the durable
 * format: the snapshot is a cache of it, written after each full rewrite of the file, and used only while it
 * provably describes that file's first bytes (same file identity, same bytes at the snapshot's end); lines
 * appended since (captured events) are parsed from that offset. Anything else — a missing, stale, corrupt or
 * foreign snapshot — falls back to parsing the whole file.
 *
 * Layout: "AMCOL1\n", a uint32 (LE) header length, the header (JSON: the events file's identity, the
 * dictionaries, each table's project and sizes), then each table's arrays in EventTable.columnsForSnapshot order.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { EventStore } from "./event-store.ts";
import { EventDictionaries, EventTable, type DictionaryLists } from "./event-table.ts";

const MAGIC = "AMCOL1\n";
/** Bytes of the events file hashed at the snapshot's end: a rewrite that reused the file's inode shows here. */
const TAIL_BYTES = 64 * 1024;
/** fs reads and writes take at most 2 GiB at once. */
const IO_CHUNK = 1 << 30;

/** Which events file, up to which byte, a snapshot stands for. */
export interface FileIdentity {
  dev: number;
  ino: number;
  birthtimeMs: number;
  size: number;
  tailSha1: string;
}

interface Header {
  events: FileIdentity;
  dictionaries: DictionaryLists;
  tables: { projectId: string; rows: number; vals: number }[];
}

function tailSha1(fd: number, size: number): string {
  const start = Math.max(0, size - TAIL_BYTES);
  const bytes = Buffer.alloc(size - start);
  readSync(fd, bytes, 0, bytes.length, start);
  return createHash("sha1").update(bytes).digest("hex");
}

/** The identity of the events file as it is now (taken right after a rewrite, before any append). */
export function identityOf(eventsFile: string): FileIdentity {
  const fd = openSync(eventsFile, "r");
  try {
    const st: Stats = statSync(eventsFile);
    return { dev: st.dev, ino: st.ino, birthtimeMs: st.birthtimeMs, size: st.size, tailSha1: tailSha1(fd, st.size) };
  } finally {
    closeSync(fd);
  }
}

/** Writes the snapshot of `events` (a store snapshot that no longer changes) for the file `identity` names. */
export async function writeColumnSnapshot(file: string, events: EventStore, identity: FileIdentity): Promise<void> {
  const tables = events.tables().map(([projectId, t]) => ({ projectId, ...t.columnsForSnapshot() }));
  const header: Header = { events: identity, dictionaries: events.dict.toLists(), tables: tables.map(({ projectId, rows, vals }) => ({ projectId, rows, vals })) };
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

/**
 * The events the snapshot holds and the byte of the events file they end at, or null when the snapshot does not
 * describe the file's beginning (then the whole file is parsed).
 */
export function readColumnSnapshot(file: string, eventsFile: string): { events: EventStore; endsAt: number } | null {
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
    if (!describesStart(header.events, eventsFile)) return null;
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
      const arrays = [read(new Float64Array(rows)), ...[rows, rows, rows * 4, rows, rows, rows].map((n) => read(new Uint32Array(n))), read(new Uint32Array(vals))];
      return EventTable.fromSnapshot(projectId, dict, rows, vals, arrays);
    });
    return { events: EventStore.fromTables(dict, tables), endsAt: header.events.size };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function describesStart(identity: FileIdentity, eventsFile: string): boolean {
  let st: Stats;
  try {
    st = statSync(eventsFile);
  } catch {
    return false;
  }
  if (st.dev !== identity.dev || st.ino !== identity.ino || st.birthtimeMs !== identity.birthtimeMs || st.size < identity.size) return false;
  const fd = openSync(eventsFile, "r");
  try {
    return tailSha1(fd, identity.size) === identity.tailSha1;
  } finally {
    closeSync(fd);
  }
}
