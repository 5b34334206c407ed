import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { Low, Memory, type Adapter } from "lowdb";
import { JSONFile } from "lowdb/node";
import { NdjsonFile, StoreFileError } from "./ndjson-file.ts";
import { PersonsJournal, replayPersonsJournal } from "./persons-journal.ts";
import { TurnCommittedJsonFile } from "./turn-committed-json-file.ts";
import { EventStore } from "./event-store.ts";
import { batchText, EventsFileReader, headerLine, type LogHeader } from "./events-file.ts";
import { EventLog } from "./log.ts";
import { identityOf, readColumnSnapshot, removeColumnSnapshot, writeColumnSnapshot } from "./column-snapshot.ts";
import { derivedProjectToken } from "../util/ids.ts";
import { upgradeDashboard } from "./dashboards-repo.ts";
import type { ActivityRecord, EventRecord, MetaData, PersonRecord, RecordingBlockRecord, State } from "./schema.ts";

/**
 * Where the state lives on disk. The main file holds the small, often-written records; the large or
 * append-only collections sit beside it so that an insight write never rewrites a million events:
 *   db.json                 meta: users, projects, insights, dashboards, views, actions, cohorts, deletion queue
 *   db.persons.json         persons
 *   db.persons.journal.ndjson  capture's person changes since db.persons.json was written (src/store/persons-journal.ts)
 *   db.events.ndjson        events, one per line, with the log's header and batch markers (src/store/events-file.ts;
 *                           rewritten only when events are deleted or replaced)
 *   db.activity.ndjson      activity log, appended
 *   db.recordings.ndjson    session recordings' blocks as `/s/` received them, appended (rewritten when one is deleted)
 */
export interface StoreFiles {
  meta: string;
  persons: string;
  personsJournal: string;
  events: string;
  activity: string;
  recordings: string;
  /** A cache of the events file's columns (src/store/column-snapshot.ts); never the only copy of anything. */
  columns: string;
}

export function storeFiles(dataFile: string): StoreFiles {
  const base = dataFile.replace(/\.json$/i, "");
  return {
    meta: dataFile,
    persons: `${base}.persons.json`,
    personsJournal: `${base}.persons.journal.ndjson`,
    events: `${base}.events.ndjson`,
    activity: `${base}.activity.ndjson`,
    recordings: `${base}.recordings.ndjson`,
    columns: `${base}.events.columns`,
  };
}

/**
 * lowdb's Low, counting the writes of the state. Every change of the state is written, so what is derived
 * from it (a serialized response body) is valid for as long as the count stays the same.
 */
class CountedLow<T> extends Low<T> {
  constructor(
    adapter: Adapter<T>,
    data: T,
    private readonly writes: { count: number },
  ) {
    super(adapter, data);
  }

  override write(): Promise<void> {
    this.writes.count++;
    return super.write();
  }
}

/** The persons file: the persons, and the last journal line they include (src/store/persons-journal.ts). */
interface PersonsFileData {
  persons: PersonRecord[];
  journal_seq?: number;
}

/** The lowdb databases behind the store; Memory adapters when nothing is written to disk. */
export interface Databases {
  meta: Low<MetaData>;
  persons: Low<{ persons: PersonRecord[] }>;
  /** The events in column tables; `write` rewrites the events file from a snapshot of them. */
  events: { data: EventStore; write(): Promise<void> };
  activity: Low<ActivityRecord[]>;
  /** Session recordings' blocks; `write` rewrites their file. */
  recordings: { data: RecordingBlockRecord[]; write(): Promise<void> };
  /** Appends recording blocks (already in `recordings.data`) without rewriting the file (memory: a no-op). */
  appendRecordings(records: readonly RecordingBlockRecord[]): Promise<void>;
  /** Appends to the activity log without rewriting it (memory: a no-op beyond the array). */
  appendActivity(records: readonly ActivityRecord[]): Promise<void>;
  /** Capture's person changes (already made in `persons.data`), journaled without rewriting the persons file. */
  journalPersons(changed: readonly PersonRecord[], removedIds: readonly number[]): Promise<void>;
  /** Appends a captured batch (log number `seq`) to the events file without rewriting it (memory: a no-op). */
  appendEvents(records: readonly EventRecord[], seq: number): Promise<void>;
  /** Where they are written; null in memory. */
  files: StoreFiles | null;
  /** How many writes of the state there have been: changes whenever the state does. */
  revision(): number;
}

export function openDatabases(files: StoreFiles | null, initial: State): Databases {
  const writes = { count: 0 };
  const low = <T>(adapter: Adapter<T>, data: T) => new CountedLow(adapter, data, writes);
  const revision = () => writes.count;
  if (!files) {
    return {
      meta: low(new Memory<MetaData>(), initial.meta),
      persons: low(new Memory<{ persons: PersonRecord[] }>(), { persons: initial.persons }),
      events: {
        data: initial.events,
        write: async () => void writes.count++,
      },
      activity: low(new Memory<ActivityRecord[]>(), initial.activity),
      recordings: { data: initial.recordings ?? [], write: async () => void writes.count++ },
      appendRecordings: async () => void writes.count++,
      appendActivity: async () => void writes.count++,
      journalPersons: async () => void writes.count++,
      appendEvents: async () => void writes.count++,
      files: null,
      revision,
    };
  }
  const activityFile = new NdjsonFile<ActivityRecord>(files.activity);
  const eventsFile = new NdjsonFile<EventRecord>(files.events);
  const recordingsFile = new NdjsonFile<RecordingBlockRecord>(files.recordings);
  const journal: PersonsJournal = new PersonsJournal(files.personsJournal, (): Promise<void> => persons.write());
  // Each full write records the journal's last number, then the journal restarts from it.
  const personsFile: TurnCommittedJsonFile<PersonsFileData> = new TurnCommittedJsonFile<PersonsFileData>(files.persons, {
    stamp: (data) => ({ ...data, journal_seq: journal.seq }),
    committed: () => journal.restart(),
  });
  const persons: Low<PersonsFileData> = low<PersonsFileData>(personsFile, { persons: initial.persons });
  // Column snapshots are written one after another, each after the rewrite it describes.
  let columnWrites = Promise.resolve();
  return {
    meta: low(new TurnCommittedJsonFile<MetaData>(files.meta), initial.meta),
    persons,
    events: {
      data: initial.events,
      async write() {
        writes.count++;
        // A snapshot: events captured while the file is written go to it by their own append, after the header's
        // base (taken in the same turn as the snapshot).
        const snapshot = this.data.share();
        const header: LogHeader = { epoch: snapshot.log.epoch, base: snapshot.log.seq };
        const identity = await eventsFile.write(snapshot, (sha1) => identityOf(files.events, sha1), headerLine(header));
        // Awaited (a stop right after a write must find it), yet a failed or interrupted
        // one only makes the next start slower.
        columnWrites = columnWrites
          .then(() => writeColumnSnapshot(files.columns, snapshot, identity, header))
          .catch(() => removeColumnSnapshot(files.columns).catch(() => undefined));
        await columnWrites;
      },
    },
    activity: low(activityFile, initial.activity),
    recordings: {
      data: initial.recordings ?? [],
      write() {
        writes.count++;
        return recordingsFile.write(this.data);
      },
    },
    appendRecordings: (records) => {
      writes.count++;
      return recordingsFile.append(records);
    },
    appendActivity: (records) => {
      writes.count++;
      return activityFile.append(records);
    },
    appendEvents: (records, seq) => {
      writes.count++;
      return eventsFile.appendText(batchText(records, seq));
    },
    journalPersons: (changed, removedIds) => {
      writes.count++;
      return journal.record(changed, removedIds);
    },
    files,
    revision,
  };
}

/**
 * Writes every file of the store. The main file goes last: a first start killed half-way leaves no main
 * file (so the next start builds the state again) rather than a main file whose siblings are missing.
 */
export async function writeAll(dbs: Databases): Promise<void> {
  if (dbs.files) await mkdir(path.dirname(dbs.files.meta), { recursive: true });
  await Promise.all([dbs.persons.write(), dbs.events.write(), dbs.activity.write(), dbs.recordings.write()]);
  await dbs.meta.write();
}

/** Reads a stored state; null when the main file does not exist. A corrupt file is refused, never replaced. */
export async function readState(files: StoreFiles): Promise<State | null> {
  if (!existsSync(files.meta)) return null;
  const meta = await readJson<MetaData>(files.meta);
  if (!meta || typeof meta !== "object" || meta.schema_version !== 1) {
    throw new StoreFileError(files.meta, "not an analytics-mock store (schema_version 1 expected)");
  }
  const stored = await readJson<PersonsFileData>(files.persons);
  if (!Array.isArray(stored?.persons)) throw new StoreFileError(files.persons, "missing or without a persons list");
  const persons = replayPersonsJournal(stored.persons, files.personsJournal, stored.journal_seq ?? 0);
  const events = await readEvents(files);
  const activity = (await new NdjsonFile<ActivityRecord>(files.activity).read()) ?? [];
  // Absent in store files written before session replay.
  const recordings = (await new NdjsonFile<RecordingBlockRecord>(files.recordings).read()) ?? [];
  return { meta: upgradeMeta(meta), persons, events, activity, recordings };
}

/**
 * The events: the column snapshot, when it describes the file's beginning, then the lines after it (or all) parsed,
 * each under its batch's log number. The log's history is taken over only when it is proven: the snapshot proves
 * the file's beginning (its SHA-1), each later batch matches its marker. Otherwise the log starts a new history,
 * so that every follower of the old one (the SQL mirror) loads the events again instead of trusting what it holds.
 */
async function readEvents(files: StoreFiles): Promise<EventStore> {
  const cached = await readColumnSnapshot(files.columns, files.events);
  const events = cached?.events ?? new EventStore();
  const reader = new EventsFileReader(cached?.log ?? null);
  const tail = new BatchedAdds(events);
  const found = await new NdjsonFile<EventRecord>(files.events).readEach((record, line) => {
    const event = reader.line(record, line);
    if (event) tail.add(event, reader.seq);
  }, cached?.endsAt ?? 0);
  if (!found) throw new StoreFileError(files.events, "missing");
  reader.finish();
  tail.flush();
  const proven = cached !== null && reader.header !== null && reader.intact;
  const log = proven ? new EventLog(reader.header!.epoch, reader.header!.base, reader.lastSeq) : new EventLog(undefined, reader.lastSeq);
  log.unwritten = !proven;
  events.useLog(log);
  events.trim();
  return events;
}

/**
 * Read events added a chunk at a time (`EventTable.addAll`): events older than the newest stored one (late
 * captures) then cost one copy of the table per chunk, where adding them one by one copied it for each (a start
 * after 12,000 late captures into 200,000 stored events allocated gigabytes a second and never listened).
 */
class BatchedAdds {
  static readonly CHUNK = 65_536;
  #records: EventRecord[] = [];
  #seqs: number[] = [];

  constructor(private readonly events: EventStore) {}

  add(record: EventRecord, seq: number): void {
    this.#records.push(record);
    this.#seqs.push(seq);
    if (this.#records.length === BatchedAdds.CHUNK) this.flush();
  }

  flush(): void {
    const byProject = new Map<string, number[]>();
    this.#records.forEach((r, k) => {
      let at = byProject.get(r.project_id);
      if (!at) byProject.set(r.project_id, (at = []));
      at.push(k);
    });
    for (const [projectId, at] of byProject) {
      this.events.tableFor(projectId).addAll(
        at.map((k) => this.#records[k]!),
        at.map((k) => this.#seqs[k]!),
      );
    }
    this.#records = [];
    this.#seqs = [];
  }
}

/** Store files written before group analytics, capture tokens, feature flags, dashboard writes and annotations existed gain their defaults on read. */
function upgradeMeta(meta: MetaData): MetaData {
  meta.group_types ??= [];
  meta.groups ??= [];
  meta.feature_flags ??= [];
  meta.flag_hash_key_overrides ??= [];
  meta.annotations ??= [];
  for (const project of meta.projects) project.api_token ??= derivedProjectToken(project.id);
  for (const dashboard of meta.dashboards) upgradeDashboard(dashboard, meta);
  return meta;
}

async function readJson<T>(file: string): Promise<T | null> {
  try {
    const db = new Low<T | null>(new JSONFile<T | null>(file), null);
    await db.read();
    return db.data;
  } catch (e) {
    throw new StoreFileError(file, (e as Error).message);
  }
}
