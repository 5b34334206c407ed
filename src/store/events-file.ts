/**
 * The events file as the durable form of the events' log (src/store/log.ts). One JSON record a line
 * (src/store/ndjson-file.ts); a rewrite starts with a header line, `{"$log":{"epoch":…,"base":…}}`, and each
 * captured batch is appended as a marker line, `{"$log":{"seq":…,"count":…,"sha1":…}}`, then its `count` lines,
 * whose text (each line with its newline) hashes to `sha1`. A reader gives each event its batch's number and
 * tells whether every batch is the one its marker describes, so that an edited file is never taken for the
 * history a follower of the log recorded. Files written before the log (no header, no markers) read as events of
 * number 0 whose history cannot be proven.
 */
import { createHash, type Hash } from "node:crypto";
import type { EventRecord } from "./schema.ts";

/** What a rewrite's first line says: the log's history, and the last number the rewritten events include. */
export interface LogHeader {
  epoch: string;
  base: number;
}

interface BatchMarker {
  seq: number;
  count: number;
  sha1: string;
}

const LOG_KEY = "$log";

export const headerLine = (header: LogHeader): string => JSON.stringify({ [LOG_KEY]: header });

/** A captured batch as appended: its marker, then its lines. */
export function batchText(records: readonly EventRecord[], seq: number): string {
  const lines = records.map((r) => JSON.stringify(r) + "\n").join("");
  const marker: BatchMarker = { seq, count: records.length, sha1: createHash("sha1").update(lines).digest("hex") };
  return JSON.stringify({ [LOG_KEY]: marker }) + "\n" + lines;
}

function logLineOf(record: unknown): Partial<LogHeader & BatchMarker> | null {
  if (typeof record !== "object" || record === null || !(LOG_KEY in record)) return null;
  const value = (record as Record<string, unknown>)[LOG_KEY];
  return typeof value === "object" && value !== null ? (value as Partial<LogHeader & BatchMarker>) : {};
}

const isHeader = (line: Partial<LogHeader & BatchMarker>): line is LogHeader => typeof line.epoch === "string" && Number.isSafeInteger(line.base);
const isMarker = (line: Partial<LogHeader & BatchMarker>): line is BatchMarker =>
  Number.isSafeInteger(line.seq) && Number.isSafeInteger(line.count) && typeof line.sha1 === "string";

/**
 * Reads the events file's lines in order (from its start, or from where a column snapshot ends, with the header
 * that snapshot carries): `line` returns an event with the number of its batch in `seq`, or null for a log line.
 */
export class EventsFileReader {
  header: LogHeader | null;
  /** The number of the batch being read (the base before any marker). */
  seq: number;
  /** The highest number read. */
  lastSeq: number;
  /** False once a batch differs from its marker, a line is outside any batch after the first marker, or a log line is malformed. */
  intact = true;
  #batch: { marker: BatchMarker; lines: number; hash: Hash } | null = null;
  #afterMarkers = false;
  #lines = 0;

  constructor(header: LogHeader | null) {
    this.header = header;
    this.seq = this.lastSeq = header?.base ?? 0;
  }

  line(record: EventRecord, text: string): EventRecord | null {
    this.#lines++;
    const log = logLineOf(record);
    if (log) {
      this.#close();
      if (isHeader(log) && this.#lines === 1 && this.header === null) {
        this.header = log;
        this.seq = this.lastSeq = log.base;
      } else if (isMarker(log) && log.seq > this.lastSeq) {
        this.#batch = { marker: log, lines: 0, hash: createHash("sha1") };
        this.#afterMarkers = true;
        this.seq = this.lastSeq = log.seq;
      } else {
        this.intact = false;
      }
      return null;
    }
    if (this.#batch) {
      this.#batch.hash.update(text + "\n");
      if (++this.#batch.lines === this.#batch.marker.count) this.#close();
    } else if (this.#afterMarkers) {
      this.intact = false;
    }
    return record;
  }

  /** Ends the reading: a batch cut short is not intact. */
  finish(): void {
    this.#close();
  }

  #close(): void {
    const batch = this.#batch;
    if (!batch) return;
    this.#batch = null;
    if (batch.lines !== batch.marker.count || batch.hash.digest("hex") !== batch.marker.sha1) this.intact = false;
  }
}
