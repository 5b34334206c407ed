/**
 * The store mirrored into the engine's tables, current at every query (read-your-writes): `sync()` compares each
 * project's data version with what was mirrored and loads the difference. Appended events (capture) are inserted
 * alone; anything else that changed a project's events (deletions, a replaced state, new group types) rebuilds
 * that project's events; persons, distinct ids and groups are rebuilt per project when their text changed. A
 * rebuild fills a staging table and replaces the project's partition at once, so a query never sees half of it.
 *
 * What is mirrored is described in `mirror.json` beside the tables, so a restart over unchanged data loads
 * nothing: it checks the row counts ClickHouse has, a sample of 64 event positions and the last event of each
 * project, and the hashes of the persons and groups.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import path from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { EventTable } from "../../store/event-table.ts";
import type { Store } from "../../store/store.ts";
import type { SqlEngine } from "../engine.ts";
import { dropSpareChunks, encodeGroups, encodePersons, groupKeyReaders, LoadBuffer } from "./encode.ts";
import { ColumnEncoder } from "./encode-columns.ts";
import { EVENT_PROPERTY_COLUMNS, EVENTS_LOAD, GROUPS_LOAD, MIRROR_DDL, MIRROR_OBJECTS, PDI_DICTIONARY, PDI_LOAD, PERSONS_LOAD, SCHEMA_ID, STAGED_TABLES, stageOf, teamIdOf, type LoadSpec } from "./schema.ts";

/** Events per file handed to ClickHouse (~70 MB of TSV): 10 M rows in one insert peaked at 6.9 GiB. */
const FILE_ROWS = 200_000;
/**
 * Events encoded between two turns of the event loop (~6 µs each: ~15 ms): the REST API and capture keep
 * answering meanwhile (10,000 a turn put capture's p99 past 100 ms while queries kept the mirror current).
 */
const SLICE_ROWS = 2_500;
/**
 * Threads ClickHouse reads a staged file with: one, as the server encodes the next file on the other core (two
 * took ~740 ms of CPU for 200,000 events where one took ~500 ms, for the same wall time).
 */
const LOAD_THREADS = 1;
const SAMPLE_POSITIONS = 64;
const MAX_LOGGED_APPENDS = 1_000_000;
const DAY_MS = 86_400_000;
const MATERIALIZED_KEYS = EVENT_PROPERTY_COLUMNS.map((c) => c.key);

interface ProjectState {
  teamId: number;
  events: number;
  /** uuid and timestamp of the last mirrored event: unchanged means the mirrored rows are still the first ones. */
  last: string;
  sample: string;
  groupTypes: string;
  persons: string;
  groups: string;
}

interface Manifest {
  schema: string;
  projects: Record<string, ProjectState>;
}

export interface SyncReport {
  /** Events inserted by appending, by reloading days from a late event's on, and by rebuilding projects. */
  appended: number;
  reloadedDays: number;
  rebuilt: number;
  /** Projects whose persons or groups were replaced. */
  personsReplaced: number;
  groupsReplaced: number;
  /** Time spent encoding events on the server's thread (the rest of `ms` is ClickHouse, or both at once). */
  encodeMs: number;
  /** Encoding calls that took the row API because the column layout was not the one expected (0 normally). */
  encoderFallbacks: number;
  ms: number;
}

const emptyProject = (projectId: string): ProjectState => ({ teamId: teamIdOf(projectId), events: 0, last: "", sample: "", groupTypes: "", persons: "", groups: "" });

export function createMirror(store: Store, engine: SqlEngine) {
  const manifestFile = path.join(engine.folder, "mirror.json");
  const loadDir = path.join(engine.folder, "mirror-load");
  let manifest: Manifest | null = null;
  /** Per project, the data version and index last mirrored in this process (what skips unchanged projects). */
  const seen = new Map<string, { version: number; index: object }>();
  let syncedRevision = -1;
  let generation = -1;
  let running: Promise<void> = Promise.resolve();
  let fileSeq = 0;
  /**
   * The uuids capture appended to each project's table since its last sync, in the order they came: events
   * placed before the table's last one (SDKs send late batches, and concurrent batches interleave) are inserted
   * as they are instead of reloading their day. Dropped when the project's table is replaced.
   */
  const appended = new Map<string, { table: EventTable; uuids: string[] | null }>();
  store.events.onAppend((projectId, table, events) => {
    let log = appended.get(projectId);
    if (log?.table !== table) appended.set(projectId, (log = { table, uuids: [] }));
    if (!log.uuids) return;
    for (const e of events) log.uuids.push(e.uuid);
    // Past this many (no query for a long while), the next sync takes the general path instead.
    if (log.uuids.length > MAX_LOGGED_APPENDS) log.uuids = null;
  });

  const admin = (sql: string) => engine.admin(sql);

  /** Opens (or makes) the tables; after a start or an engine restart, trusts only what ClickHouse still has. */
  async function openTables(): Promise<Manifest> {
    mkdirSync(loadDir, { recursive: true });
    let m = readManifest(manifestFile);
    if (!m || m.schema !== SCHEMA_ID) {
      for (const name of MIRROR_OBJECTS) await admin(name === PDI_DICTIONARY ? `DROP DICTIONARY IF EXISTS ${name}` : `DROP TABLE IF EXISTS ${name}`);
      m = { schema: SCHEMA_ID, projects: {} };
    }
    for (const ddl of MIRROR_DDL) await admin(ddl);
    for (const table of STAGED_TABLES) await admin(`CREATE TABLE IF NOT EXISTS ${stageOf(table)} AS ${table}`);
    const counts = new Map((await admin("SELECT team_id, count() FROM events GROUP BY team_id")).rows.map(([t, n]) => [Number(t), Number(n)]));
    for (const [id, p] of Object.entries(m.projects)) {
      // Rows a killed engine lost (or kept) since the manifest was written: the project is loaded again.
      if ((counts.get(p.teamId) ?? 0) !== p.events) m.projects[id] = { ...p, events: -1 };
    }
    seen.clear();
    generation = engine.generation();
    return m;
  }

  function saveManifest(m: Manifest): void {
    const tmp = `${manifestFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(m));
    renameSync(tmp, manifestFile);
  }

  /** Loads a file's bytes into a table through a file in the data folder (chdb's own insert parses ~4× slower). */
  async function load(spec: LoadSpec, table: string, data: LoadBuffer): Promise<void> {
    if (data.rows === 0) return;
    const file = path.join(loadDir, `${++fileSeq}.${spec.format.toLowerCase()}`);
    const handle = await open(file, "w");
    try {
      await handle.writev(data.chunks());
    } finally {
      await handle.close();
      // On disk now: its chunks go to the next file.
      data.release();
    }
    try {
      await admin(`INSERT INTO ${table} (${spec.columns.map((c) => `\`${c}\``).join(", ")}) SELECT ${spec.select} FROM file('${file.replace(/'/g, "\\'")}', '${spec.format}', '${spec.structure.replace(/'/g, "\\'")}') SETTINGS insert_allow_materialized_columns = 1, max_threads = ${LOAD_THREADS}`);
    } finally {
      await rm(file, { force: true });
    }
  }

  /** Loads events [from, to) of a table into `target`, encoding the next file while ClickHouse reads the last. */
  async function loadEvents(table: EventTable, teamId: number, from: number, to: number, target: string, groupKeys: ReturnType<typeof groupKeyReaders>, report: SyncReport): Promise<void> {
    const row = table.cursor();
    // One encoder per load: its pieces are dropped with it (a dictionary's worth of strings at ten million events).
    const encoder = new ColumnEncoder(table, MATERIALIZED_KEYS, groupKeys);
    // A load of several files makes as many parts; merging them while loading rewrote the rows again on the
    // way to the first answer: the merges wait until the load is done (queries read unmerged parts as well).
    const bulk = to - from > FILE_ROWS;
    if (bulk) await admin(`SYSTEM STOP MERGES ${target}`);
    try {
      await encodeAndLoad(encoder, row, teamId, from, to, target, report);
    } finally {
      if (bulk) await admin(`SYSTEM START MERGES ${target}`);
    }
    report.encoderFallbacks += encoder.fallbacks;
  }

  async function encodeAndLoad(encoder: ColumnEncoder, row: ReturnType<EventTable["cursor"]>, teamId: number, from: number, to: number, target: string, report: SyncReport): Promise<void> {
    let inFlight: Promise<void> = Promise.resolve();
    for (let start = from; start < to; start += FILE_ROWS) {
      const end = Math.min(to, start + FILE_ROWS);
      const out = new LoadBuffer();
      for (let s = start; s < end; s += SLICE_ROWS) {
        const t = performance.now();
        encoder.encode(row, s, Math.min(end, s + SLICE_ROWS), teamId, out);
        report.encodeMs += performance.now() - t;
        await yieldToLoop();
      }
      await inFlight;
      inFlight = load(EVENTS_LOAD, target, out);
    }
    await inFlight;
  }

  /** Replaces a project's partition of `table` with what its staging table holds (or drops it when empty). */
  async function replacePartition(table: string, teamId: number, rows: number): Promise<void> {
    if (rows === 0) await admin(`ALTER TABLE ${table} DROP PARTITION ${teamId}`);
    else await admin(`ALTER TABLE ${table} REPLACE PARTITION ${teamId} FROM ${stageOf(table)}`);
    await admin(`TRUNCATE TABLE ${stageOf(table)}`);
  }

  /**
   * A project's events. Appended at the end (the usual capture): inserted alone. Inserted inside (a late event:
   * SDKs send batches, so this is common) while nothing was removed: the days from the first one whose count
   * differs are deleted and loaded again, usually today alone. Anything else: the project is rebuilt.
   */
  async function syncEvents(projectId: string, p: ProjectState, onlyInserted: boolean, report: SyncReport): Promise<void> {
    const table = store.analysisData.events(projectId);
    const n = table.length;
    const groupData = store.analysisData.groupData(projectId);
    const groupTypes = JSON.stringify(groupData.types.map((t) => [t.group_type_index, t.group_type]).sort());
    const groupKeys = groupKeyReaders(groupData);
    const sameGroups = p.groupTypes === groupTypes;
    const prefixKept = p.events === 0 || (p.events > 0 && p.events <= n && sameGroups && lastOf(table, p.events) === p.last && sampleOf(table, p.events) === p.sample);
    const log = appended.get(projectId);
    const captured = !prefixKept && onlyInserted && sameGroups && p.events > 0 && log?.table === table && log.uuids?.length === n - p.events ? positionsOf(table, log.uuids) : null;
    const from = prefixKept || captured ? -1 : onlyInserted && sameGroups && p.events > 0 && p.events < n ? await firstChangedPosition(table, p.teamId) : -1;
    if (captured) {
      await loadPositions(table, p.teamId, captured, groupKeys, report);
      report.appended += captured.length;
    } else if (prefixKept) {
      if (n > p.events) await loadEvents(table, p.teamId, p.events, n, "events", groupKeys, report);
      report.appended += n - Math.max(p.events, 0);
    } else if (from >= 0) {
      const dayStart = Math.floor(table.timestampAt(from) / DAY_MS) * DAY_MS;
      await admin(`DELETE FROM events WHERE team_id = ${p.teamId} AND timestamp >= fromUnixTimestamp64Milli(${dayStart}, 'UTC')`);
      await loadEvents(table, p.teamId, from, n, "events", groupKeys, report);
      report.reloadedDays += n - from;
    } else {
      await loadEvents(table, p.teamId, 0, n, stageOf("events"), groupKeys, report);
      await replacePartition("events", p.teamId, n);
      report.rebuilt += n;
    }
    Object.assign(p, { events: n, last: lastOf(table, n), sample: sampleOf(table, n), groupTypes });
    appended.set(projectId, { table, uuids: [] });
  }

  /** Loads the events at the given positions (ascending), as runs of consecutive positions, into `events`. */
  async function loadPositions(table: EventTable, teamId: number, positions: number[], groupKeys: ReturnType<typeof groupKeyReaders>, report: SyncReport): Promise<void> {
    const row = table.cursor();
    const encoder = new ColumnEncoder(table, MATERIALIZED_KEYS, groupKeys);
    const out = new LoadBuffer();
    const t = performance.now();
    for (let i = 0; i < positions.length; ) {
      let j = i + 1;
      while (j < positions.length && positions[j] === positions[j - 1]! + 1) j++;
      encoder.encode(row, positions[i]!, positions[j - 1]! + 1, teamId, out);
      i = j;
    }
    report.encodeMs += performance.now() - t;
    report.encoderFallbacks += encoder.fallbacks;
    await load(EVENTS_LOAD, "events", out);
  }

  /**
   * The position of the first event of the first UTC day whose event count differs between the store and the
   * mirror (-1 when none does): with insertions only, every day before it is unchanged.
   */
  async function firstChangedPosition(table: EventTable, teamId: number): Promise<number> {
    const mirrored = new Map((await admin(`SELECT toUInt32(toDate(timestamp)), count() FROM events WHERE team_id = ${teamId} GROUP BY 1`)).rows.map(([d, c]) => [Number(d), Number(c)]));
    let start = 0;
    while (start < table.length) {
      const day = Math.floor(table.timestampAt(start) / DAY_MS);
      let end = start;
      while (end < table.length && Math.floor(table.timestampAt(end) / DAY_MS) === day) end++;
      if ((mirrored.get(day) ?? 0) !== end - start) return start;
      mirrored.delete(day);
      start = end;
    }
    return -1;
  }

  async function syncPersons(projectId: string, p: ProjectState, report: SyncReport): Promise<boolean> {
    const { persons, distinctIds } = encodePersons(store.analysisData.index(projectId).personsById.values(), p.teamId);
    const hash = createHash("sha1").update(persons.bytes()).update("\0").update(distinctIds.bytes()).digest("hex");
    if (hash === p.persons) return false;
    await load(PERSONS_LOAD, stageOf("persons"), persons);
    await replacePartition("persons", p.teamId, persons.rows);
    await load(PDI_LOAD, stageOf("person_distinct_ids"), distinctIds);
    await replacePartition("person_distinct_ids", p.teamId, distinctIds.rows);
    p.persons = hash;
    report.personsReplaced++;
    return true;
  }

  async function syncGroups(projectId: string, p: ProjectState, report: SyncReport): Promise<void> {
    const groups = encodeGroups(store.analysisData.groups(projectId), p.teamId);
    const hash = createHash("sha1").update(groups.bytes()).digest("hex");
    if (hash === p.groups) return;
    await load(GROUPS_LOAD, stageOf("groups"), groups);
    await replacePartition("groups", p.teamId, groups.rows);
    p.groups = hash;
    report.groupsReplaced++;
  }

  async function syncOnce(report: SyncReport): Promise<void> {
    const revision = store.revision();
    if (!manifest || generation !== engine.generation()) manifest = await openTables();
    const m = manifest;
    const projects = new Set([...store.projects.all().map((p) => p.id), ...Object.keys(m.projects)]);
    let personsChanged = false;
    for (const projectId of projects) {
      // Read before loading: a change made while this project loads is seen by the next sync.
      const mark = { version: store.analysisData.version(projectId), index: store.analysisData.index(projectId) };
      const last = seen.get(projectId);
      if (last && last.version === mark.version && last.index === mark.index) continue;
      const p = (m.projects[projectId] ??= emptyProject(projectId));
      // The same index object: no deletion, no reset since the last sync, so events can only have been inserted.
      await syncEvents(projectId, p, last?.index === mark.index, report);
      personsChanged = (await syncPersons(projectId, p, report)) || personsChanged;
      await syncGroups(projectId, p, report);
      saveManifest(m);
      seen.set(projectId, mark);
    }
    if (personsChanged) await admin(`SYSTEM RELOAD DICTIONARY ${PDI_DICTIONARY}`);
    syncedRevision = revision;
  }

  return {
    /**
     * Brings the mirror up to the store as it is now. Syncs run one after another; a caller arriving during one
     * waits for it and then for one more if the store changed meanwhile.
     */
    sync(): Promise<SyncReport> {
      const report: SyncReport = { appended: 0, reloadedDays: 0, rebuilt: 0, personsReplaced: 0, groupsReplaced: 0, encodeMs: 0, encoderFallbacks: 0, ms: 0 };
      const started = performance.now();
      const next = running.then(async () => {
        if (syncedRevision === store.revision() && generation === engine.generation()) return;
        try {
          await syncOnce(report);
        } finally {
          dropSpareChunks();
        }
      });
      running = next.catch(() => undefined);
      return next.then(() => ({ ...report, ms: performance.now() - started }));
    },
  };
}

export type Mirror = ReturnType<typeof createMirror>;

function readManifest(file: string): Manifest | null {
  try {
    const m = JSON.parse(readFileSync(file, "utf8")) as Manifest;
    return typeof m?.schema === "string" && typeof m.projects === "object" ? m : null;
  } catch {
    return null;
  }
}

/** The ascending positions of events by uuid; null if one is not in the table (then the log cannot be trusted). */
function positionsOf(table: EventTable, uuids: readonly string[]): number[] | null {
  const positions = new Int32Array(uuids.length);
  for (let i = 0; i < uuids.length; i++) {
    const at = table.positionOfUuid(uuids[i]!);
    if (at < 0) return null;
    positions[i] = at;
  }
  positions.sort();
  for (let i = 1; i < positions.length; i++) if (positions[i] === positions[i - 1]) return null;
  return Array.from(positions);
}

/** The event at position n-1 as "uuid@timestamp" ("" without events). */
function lastOf(table: EventTable, n: number): string {
  if (n === 0) return "";
  const row = table.at(n - 1)!;
  return `${row.uuid}@${row.timestamp}`;
}

/** A digest of up to 64 evenly spaced events among the first n: a rewrite of the middle shows here. */
function sampleOf(table: EventTable, n: number): string {
  const hash = createHash("sha1");
  const row = table.cursor();
  const count = Math.min(n, SAMPLE_POSITIONS);
  for (let k = 0; k < count; k++) {
    row.position = count === 1 ? 0 : Math.round((k * (n - 1)) / (count - 1));
    hash.update(`${row.uuid}@${row.timestamp};`);
  }
  return hash.digest("hex");
}
