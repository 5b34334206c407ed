/**
 * Capture's person changes as lines appended to a journal beside the persons file, where each captured batch
 * rewrote that whole file (a few thousand persons: ~600 KiB written and renamed per write, a fifth of capture's
 * time). Lines are `{"seq":N,"person":{…}}` (the person as it now is) or `{"seq":N,"removed":id}`, numbered in
 * order. A full write of the persons file records the last number it includes (`journal_seq`) and then restarts
 * the journal with one `{"seq":N,"base":true}` line; a start applies only the lines after the recorded number,
 * so a crash between the two applies nothing twice, and the numbering goes on from the journal's last line.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { StoreFileError } from "./ndjson-file.ts";
import type { PersonRecord } from "./schema.ts";

type JournalLine = { seq: number; person: PersonRecord } | { seq: number; removed: number } | { seq: number; base: true };

/** A journal this long is folded into a full write of the persons file (a start then replays little). */
const COMPACT_AT_BYTES = 4 * 1024 * 1024;

export class PersonsJournal {
  #seq: number;
  #bytes: number;
  /** The number of the base line when nothing was appended after it (a restart then has nothing to do). */
  #baseOnly: number | null = null;
  #pending: { changes: Map<number, PersonRecord | null>; written: Promise<void> } | null = null;

  /** `compact`: a full write of the persons file (which then calls `restart`). */
  constructor(
    private readonly file: string,
    private readonly compact: () => Promise<void>,
  ) {
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    this.#bytes = Buffer.byteLength(text);
    this.#seq = lastSeq(text);
  }

  /** The number of the last change written: what a full write of the persons file includes. */
  get seq(): number {
    return this.#seq;
  }

  /**
   * Journals persons as they now are, and removed ids; resolves once on disk. The changes of one turn go out in
   * one append after the next poll of the sockets (as TurnCommittedJsonFile's writes), a person once.
   */
  record(changed: readonly PersonRecord[], removed: readonly number[]): Promise<void> {
    const pending = this.#pending ?? this.#schedule();
    for (const person of changed) pending.changes.set(person.id, person);
    for (const id of removed) pending.changes.set(id, null);
    return pending.written;
  }

  /**
   * After a full write of the persons file recorded `seq`: the journal restarts at that number (atomically). The
   * changes waiting for the next append are in that write already (it wrote the persons as they are), and are
   * dropped: appended after it, a person deleted meanwhile by the API would come back at the next start.
   */
  restart(): void {
    this.#pending?.changes.clear();
    if (this.#seq === 0 || this.#baseOnly === this.#seq) return;
    const base = `${JSON.stringify({ seq: this.#seq, base: true })}\n`;
    const temp = path.join(path.dirname(this.file), `.${path.basename(this.file)}.tmp`);
    writeFileSync(temp, base);
    renameSync(temp, this.file);
    this.#bytes = base.length;
    this.#baseOnly = this.#seq;
  }

  #schedule(): { changes: Map<number, PersonRecord | null>; written: Promise<void> } {
    const pending = { changes: new Map<number, PersonRecord | null>(), written: Promise.resolve() };
    pending.written = new Promise<void>((resolve, reject) =>
      setImmediate(() =>
        setImmediate(() => {
          this.#pending = null;
          try {
            this.#append(pending.changes);
          } catch (e) {
            return reject(e);
          }
          resolve();
          if (this.#bytes > COMPACT_AT_BYTES) void this.compact().catch(() => undefined);
        }),
      ),
    );
    this.#pending = pending;
    return pending;
  }

  #append(changes: Map<number, PersonRecord | null>): void {
    let seq = this.#seq;
    let lines = "";
    for (const [id, person] of changes) {
      seq++;
      lines += `${JSON.stringify(person ? { seq, person } : { seq, removed: id })}\n`;
    }
    if (lines === "") return;
    appendFileSync(this.file, lines);
    this.#seq = seq;
    this.#bytes += Buffer.byteLength(lines);
    this.#baseOnly = null;
  }
}

/** The number of a journal's last line (0 without lines): lines are written in order, `{"seq":N,` first. */
function lastSeq(text: string): number {
  const trimmed = text.trimEnd();
  const line = trimmed.slice(trimmed.lastIndexOf("\n") + 1);
  const m = /^\{"seq":(\d+)[,}]/.exec(line);
  return m ? Number(m[1]) : 0;
}

/**
 * The persons of a full write (which included the changes up to `fromSeq`) with the journal's later changes applied.
 * A last line cut short (a crash inside an append that was never acknowledged) is ignored; any other bad line is
 * refused, as every store file's is.
 */
export function replayPersonsJournal(persons: PersonRecord[], file: string, fromSeq: number): PersonRecord[] {
  if (!existsSync(file)) return persons;
  const lines = readFileSync(file, "utf8").split("\n");
  const byId = new Map(persons.map((p, i) => [p.id, i]));
  const out: (PersonRecord | null)[] = persons.slice();
  lines.forEach((text, i) => {
    if (text === "") return;
    let line: JournalLine;
    try {
      line = JSON.parse(text) as JournalLine;
    } catch (e) {
      if (i === lines.length - 1) return;
      throw new StoreFileError(file, `line ${i + 1} is not valid JSON (${(e as Error).message})`);
    }
    if (line.seq <= fromSeq || "base" in line) return;
    const id = "person" in line ? line.person.id : line.removed;
    const at = byId.get(id);
    const next = "person" in line ? line.person : null;
    if (at !== undefined) out[at] = next;
    else if (next) byId.set(id, out.push(next) - 1);
  });
  return out.filter((p): p is PersonRecord => p !== null);
}
