import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { Low, Memory } from "lowdb";
import { JSONFile } from "lowdb/node";
import { NdjsonFile, StoreFileError } from "./ndjson-file.ts";
import { TurnCommittedJsonFile } from "./turn-committed-json-file.ts";
import type { ActivityRecord, EventRecord, MetaData, PersonRecord, State } from "./schema.ts";

/**
 * Where the state lives on disk. The main file holds the small, often-written records; the large or
 * append-only collections sit beside it so that an insight write never rewrites a million events:
 *   db.json                 meta: users, projects, insights, dashboards, views, actions, cohorts, deletion queue
 *   db.persons.json         persons
 *   db.events.ndjson        events, one per line (rewritten only when events are deleted or replaced)
 *   db.activity.ndjson      activity log, appended
 */
export interface StoreFiles {
  meta: string;
  persons: string;
  events: string;
  activity: string;
}

export function storeFiles(dataFile: string): StoreFiles {
  const base = dataFile.replace(/\.json$/i, "");
  return {
    meta: dataFile,
    persons: `${base}.persons.json`,
    events: `${base}.events.ndjson`,
    activity: `${base}.activity.ndjson`,
  };
}

/** The lowdb databases behind the store; Memory adapters when nothing is written to disk. */
export interface Databases {
  meta: Low<MetaData>;
  persons: Low<{ persons: PersonRecord[] }>;
  events: Low<EventRecord[]>;
  activity: Low<ActivityRecord[]>;
  /** Appends to the activity log without rewriting it (memory: a no-op beyond the array). */
  appendActivity(records: readonly ActivityRecord[]): Promise<void>;
  /** Where they are written; null in memory. */
  files: StoreFiles | null;
}

export function openDatabases(files: StoreFiles | null, initial: State): Databases {
  if (!files) {
    const activity = new Low(new Memory<ActivityRecord[]>(), initial.activity);
    return {
      meta: new Low(new Memory<MetaData>(), initial.meta),
      persons: new Low(new Memory<{ persons: PersonRecord[] }>(), { persons: initial.persons }),
      events: new Low(new Memory<EventRecord[]>(), initial.events),
      activity,
      appendActivity: async () => undefined,
      files: null,
    };
  }
  const activityFile = new NdjsonFile<ActivityRecord>(files.activity);
  return {
    meta: new Low(new TurnCommittedJsonFile<MetaData>(files.meta), initial.meta),
    persons: new Low(new TurnCommittedJsonFile<{ persons: PersonRecord[] }>(files.persons), { persons: initial.persons }),
    events: new Low(new NdjsonFile<EventRecord>(files.events), initial.events),
    activity: new Low(activityFile, initial.activity),
    appendActivity: (records) => activityFile.append(records),
    files,
  };
}

/**
 * Writes every file of the store. The main file goes last: a first start killed half-way leaves no main
 * file (so the next start builds the state again) rather than a main file whose siblings are missing.
 */
export async function writeAll(dbs: Databases): Promise<void> {
  if (dbs.files) await mkdir(path.dirname(dbs.files.meta), { recursive: true });
  await Promise.all([dbs.persons.write(), dbs.events.write(), dbs.activity.write()]);
  await dbs.meta.write();
}

/** Reads a stored state; null when the main file does not exist. A corrupt file is refused, never replaced. */
export async function readState(files: StoreFiles): Promise<State | null> {
  if (!existsSync(files.meta)) return null;
  const meta = await readJson<MetaData>(files.meta);
  if (!meta || typeof meta !== "object" || meta.schema_version !== 1) {
    throw new StoreFileError(files.meta, "not an analytics-mock store (schema_version 1 expected)");
  }
  const persons = (await readJson<{ persons: PersonRecord[] }>(files.persons))?.persons;
  if (!Array.isArray(persons)) throw new StoreFileError(files.persons, "missing or without a persons list");
  const events = await new NdjsonFile<EventRecord>(files.events).read();
  if (!events) throw new StoreFileError(files.events, "missing");
  const activity = (await new NdjsonFile<ActivityRecord>(files.activity).read()) ?? [];
  return { meta, persons, events, activity };
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
